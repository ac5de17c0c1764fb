/** The emulator itself: fault injection and the HTTP control routes the e2e suites drive the emulator with. */
import { connectEmulator } from '../../devkit/emulator';
import { sleep, importLead, read, get, useEmulators } from './kit';

const { emu, start } = useEmulators();

describe('fault injection', () => {
	it('answers injected statuses FIFO, with Retry-After and bodies as given', async () => {
		emu().inject({ kind: 'status', status: 503, count: 2 });
		emu().inject({ kind: 'status', status: 429, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT' });
		emu().inject({ kind: 'status', status: 502, body: '<html><body>Bad gateway</body></html>' });
		emu().inject({
			kind: 'status',
			status: 201,
			body: '{"id": "lead_',
			contentType: 'application/json',
		});
		const seen: Array<[number, string | null, string]> = [];
		for (let i = 0; i < 6; i++) {
			const response = await importLead(emu(), { phone_e164: '+14155552671' });
			seen.push([response.status, response.headers.get('retry-after'), await response.text()]);
		}
		expect(seen.map(([status]) => status)).toEqual([503, 503, 429, 502, 201, 201]);
		expect(seen[0][2]).toBe('{"detail":"Service Unavailable"}');
		expect(seen[2][1]).toBe('Wed, 21 Oct 2015 07:28:00 GMT');
		expect(seen[3][2]).toContain('<html>');
		expect(seen[4][2]).toBe('{"id": "lead_');
		// Gateway faults never reach the service: only the last import wrote the lead.
		expect(emu().leads.get('+14155552671')?.writes).toBe(1);
		expect(emu().requests.map((r) => r.fault)).toEqual([
			'status',
			'status',
			'status',
			'status',
			'status',
			undefined,
		]);
	});

	it('matches faults by path (string or RegExp) and method', async () => {
		emu().inject({ kind: 'status', status: 504, path: /\/recording$/ });
		emu().inject({ kind: 'status', status: 503, path: '/v1/leads', method: 'post' });
		expect((await get(`${emu().baseUrl}/v1/calls?limit=1`)).status).toBe(200);
		expect((await get(`${emu().baseUrl}/v1/calls/call_000120/recording`)).status).toBe(504);
		expect((await importLead(emu(), { phone_e164: '+14155552671' })).status).toBe(503);
	});

	it('resets before the body: nothing processed', async () => {
		emu().inject({ kind: 'reset', when: 'before-body' });
		await expect(importLead(emu(), { phone_e164: '+14155552671' })).rejects.toThrow();
		expect(emu().leads.size).toBe(0);
		expect(emu().requests[0].status).toBe('reset');
	});

	it('resets after the body: the lead was upserted, only the answer is lost', async () => {
		emu().inject({ kind: 'reset', when: 'after-body' });
		await expect(importLead(emu(), { phone_e164: '+14155552671', name: 'Ada' })).rejects.toThrow();
		expect(emu().leads.get('+14155552671')?.name).toBe('Ada');
		expect(emu().requests[0]).toMatchObject({
			status: 'reset',
			body: '{"phone_e164":"+14155552671","name":"Ada"}',
		});
		expect(emu().stats().byStatus).toEqual({ reset: 1 });
	});

	it('hangs until stop(), which returns promptly and cuts the hung request', async () => {
		const hanging = await start({ rateLimit: false });
		hanging.inject({ kind: 'hang' });
		const pending = importLead(hanging, { phone_e164: '+14155552671' });
		const outcome = pending.then(
			() => 'answered',
			() => 'failed',
		);
		while (hanging.requests[0]?.status !== 'hang') await sleep(10);
		await sleep(100);
		const before = Date.now();
		await hanging.stop();
		expect(Date.now() - before).toBeLessThan(1000);
		expect(await outcome).toBe('failed');
		expect(hanging.leads.size).toBe(0);
	});

	it('keeps only counters when recordRequests is false', async () => {
		const quiet = await start({ rateLimit: { limit: 1, windowMs: 60_000 }, recordRequests: false });
		await importLead(quiet, { phone_e164: '+14155552671' });
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
	it('drives faults, rate limit, calls, state and reset over HTTP', async () => {
		const control = connectEmulator(emu().baseUrl);
		await control.inject([
			{ kind: 'status', status: 503, path: /^\/v1\/leads$/ },
			{ kind: 'status', status: 500, path: '/never' },
		]);
		expect((await importLead(emu(), { phone_e164: '+14155552671' })).status).toBe(503);
		await control.clearFaults();
		expect((await importLead(emu(), { phone_e164: '+14155552671' })).status).toBe(201);

		await control.setRateLimit({ limit: 1, windowMs: 5000, algorithm: 'fixed-window' });
		expect((await get(`${emu().baseUrl}/v1/calls?limit=1`)).status).toBe(200);
		expect((await get(`${emu().baseUrl}/v1/calls?limit=1`)).status).toBe(429);
		await control.setRateLimit(false);

		const added = await control.addCalls(2, { direction: 'inbound' });
		expect(added.map((c) => c.id)).toEqual(['call_000122', 'call_000121']);
		expect(emu().calls[0].id).toBe('call_000122');

		const state = await control.state({ since: 1 });
		expect(state.requestsTotal).toBe(4);
		expect(state.requests.map((r) => r.status)).toEqual([201, 200, 429]);
		expect(state.leads).toHaveLength(1);
		expect(state.stats).toMatchObject({ requests: 4, leads: 1 });
		expect(state.rateLimit).toBe(false);

		await control.reset();
		expect(emu().requests).toHaveLength(0);
		expect(emu().leads.size).toBe(0);
		expect(emu().calls).toHaveLength(120);
	});

	it('refuses nonsense with 400 and a readable message', async () => {
		const response = await fetch(`${emu().baseUrl}/__emulator/faults`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ kind: 'explode' }),
		});
		expect(response.status).toBe(400);
		expect(await read(response)).toEqual({ detail: 'unknown fault kind: explode' });
		const limit = await fetch(`${emu().baseUrl}/__emulator/rate-limit`, {
			method: 'POST',
			body: '{"limit":0}',
		});
		expect(limit.status).toBe(400);
	});
});
