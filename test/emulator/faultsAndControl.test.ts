/** The emulator itself: fault injection and the HTTP control routes (`connectEmulator`). */
import { connectEmulator } from '../../devkit/emulator';
import { sleep, importLead, read, get, useEmulators } from './kit';

const { emu, start } = useEmulators();
const phone = '+14155552671';

describe('fault injection', () => {
	it('answers injected statuses FIFO, matched by path and method, never reaching the service', async () => {
		emu().inject({ kind: 'status', status: 504, path: /\/recording$/ });
		emu().inject({ kind: 'status', status: 503, count: 2, path: '/v1/leads', method: 'post' });
		emu().inject({ kind: 'status', status: 429, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT' });
		emu().inject({ kind: 'status', status: 502, body: '<html><body>Bad gateway</body></html>' });
		emu().inject({ kind: 'status', status: 201, body: '{"id": "lead_', contentType: 'text/x' });
		expect((await get(`${emu().baseUrl}/v1/calls/call_000120/recording`)).status).toBe(504);
		const seen: Array<Array<string | number | null>> = [];
		for (let i = 0; i < 6; i++) {
			const response = await importLead(emu(), { phone_e164: phone });
			const { headers } = response;
			seen.push([response.status, headers.get('retry-after'), headers.get('content-type')]);
			seen[i].push(await response.text());
		}
		const json = 'application/json';
		expect(seen.slice(0, 5)).toEqual([
			[503, null, json, '{"detail":"Service Unavailable"}'],
			[503, null, json, '{"detail":"Service Unavailable"}'],
			[429, 'Wed, 21 Oct 2015 07:28:00 GMT', json, '{"detail":"Too Many Requests"}'],
			[502, null, 'text/html; charset=utf-8', '<html><body>Bad gateway</body></html>'],
			[201, null, 'text/x', '{"id": "lead_'],
		]);
		expect(seen[5][0]).toBe(201);
		// Gateway faults never reach the service: only the last import wrote the lead.
		expect(emu().leads.get(phone)?.writes).toBe(1);
		expect(emu().requests.map((r) => r.fault)).toEqual([...Array(6).fill('status'), undefined]);
	});

	it.each([
		['before-body', undefined, 0],
		['after-body', 'Ada', 1],
	] as const)('resets the connection %s', async (when, name, size) => {
		emu().inject({ kind: 'reset', when });
		await expect(importLead(emu(), { phone_e164: phone, name: 'Ada' })).rejects.toThrow();
		// After the body the request was processed: only the answer is lost.
		expect([emu().leads.size, emu().leads.get(phone)?.name]).toEqual([size, name]);
		const body = when === 'after-body' ? `{"phone_e164":"${phone}","name":"Ada"}` : '';
		expect(emu().requests).toEqual([expect.objectContaining({ status: 'reset', body })]);
		expect(emu().stats().byStatus).toEqual({ reset: 1 });
	});

	it('hangs until stop(), which returns promptly and cuts the hung request', async () => {
		const hanging = await start();
		hanging.inject({ kind: 'hang' });
		const outcome = importLead(hanging, { phone_e164: phone }).then(
			() => 'answered',
			() => 'failed',
		);
		while (hanging.requests[0]?.status !== 'hang') await sleep(10);
		await sleep(100);
		const before = Date.now();
		await hanging.stop();
		expect(Date.now() - before).toBeLessThan(1000);
		expect([await outcome, hanging.leads.size]).toEqual(['failed', 0]);
	});

	it('keeps only counters when recordRequests is false', async () => {
		const quiet = await start({ rateLimit: { limit: 1, windowMs: 60_000 }, recordRequests: false });
		await importLead(quiet, { phone_e164: phone });
		await importLead(quiet, { phone_e164: '+14155552672' });
		expect(quiet.requests).toHaveLength(0);
		expect(quiet.stats()).toEqual({
			requests: 2,
			byStatus: { '201': 1, '429': 1 },
			leads: 1,
			fileRequests: 0,
			fileByStatus: {},
		});
	});
});

describe('HTTP control routes', () => {
	it('drive faults, rate limit, calls, recordings, state and reset', async () => {
		const control = connectEmulator(emu().baseUrl);
		await control.inject([
			{ kind: 'status', status: 503, path: /^\/v1\/leads$/ },
			{ kind: 'status', status: 500, path: '/never' },
		]);
		expect((await importLead(emu(), { phone_e164: phone })).status).toBe(503);
		await control.clearFaults();
		expect((await importLead(emu(), { phone_e164: phone })).status).toBe(201);

		await control.setRateLimit({ limit: 1, windowMs: 5000, algorithm: 'fixed-window' });
		expect((await get(`${emu().baseUrl}/v1/calls?limit=1`)).status).toBe(200);
		expect((await get(`${emu().baseUrl}/v1/calls?limit=1`)).status).toBe(429);
		await control.setRateLimit(false);

		await control.setRecordingProcessing({ delayMs: 60_000, pendingAnswer: '202' });
		await control.setRecordingFiles({ recordingFileNames: 'same' });
		const added = await control.addCalls(2, { direction: 'inbound', has_recording: true });
		expect(added.map((c) => [c.id, c.direction])).toEqual([
			['call_000122', 'inbound'],
			['call_000121', 'inbound'],
		]);
		expect(emu().calls[0].id).toBe('call_000122');
		const seeded = emu().calls.find((call) => call.has_recording && call.id < 'call_000121')!;
		const recording = (id: string) => get(`${emu().baseUrl}/v1/calls/${id}/recording`);
		// Only calls added from then on are processed; seeded calls are ready.
		expect((await recording('call_000122')).status).toBe(202);
		expect((await recording(seeded.id)).status).toBe(200);
		const { created_at } = emu().calls[5];
		const [late] = await control.addCalls(1, { created_at }, { listedLate: true });
		expect(emu().calls[6]).toEqual(late); // after the call of the same time

		const state = await control.state({ since: 1 });
		expect(state).toMatchObject({
			requestsTotal: 6,
			leads: [expect.objectContaining({ phone_e164: phone })],
			stats: { requests: 6, leads: 1 },
			rateLimit: false,
			recordingProcessing: { delayMs: 60_000, pendingAnswer: '202' },
			recordingFiles: { recordingFileNames: 'same', recordingContentType: 'audio/mpeg' },
		});
		expect(state.requests.map((r) => r.status)).toEqual([201, 200, 429, 202, 200]);

		await control.reset();
		expect([emu().requests.length, emu().leads.size, emu().calls.length]).toEqual([0, 0, 120]);
		expect((await control.state()).recordingFiles.recordingFileNames).toBe('by-call');
	});

	it.each([
		['faults', { kind: 'explode' }, 'unknown fault kind: explode'],
		['rate-limit', { limit: 0 }, 'rate limit: limit must be a positive integer'],
		[
			'recording-files',
			{ recordingContentType: 'mp3' },
			'recordingContentType must be a media type such as audio/mpeg',
		],
		[
			'recording-files',
			{ recordingFileNames: 'random' },
			'recordingFileNames must be one of by-call, same, content',
		],
		[
			'recording-files',
			{ recordingUrlForm: 'other' },
			'recordingUrlForm must be absolute or relative',
		],
	])('refuses a nonsense %s with 400 saying why', async (route, body, detail) => {
		const response = await fetch(`${emu().baseUrl}/__emulator/${route}`, {
			method: 'POST',
			body: JSON.stringify(body),
		});
		expect([response.status, await read(response)]).toEqual([400, { detail }]);
	});
});
