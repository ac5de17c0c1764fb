/** The emulator itself: GET /v1/calls/{id}/recording and the file host behind its signed URLs. */
import { createHash } from 'crypto';

import type { CallRecord, Emulator } from '../../devkit/emulator';
import { connectEmulator, DEMO_KEYS, recordingBytes } from '../../devkit/emulator';
import { sleep, bearer, read, get, useEmulators } from './kit';

const { start } = useEmulators();

describe('recordings and the file host', () => {
	let files: Emulator;
	beforeAll(async () => {
		files = await start({ rateLimit: false, recordingBytes: 300_000 });
	});
	beforeEach(() => files.reset());

	const recorded = (): CallRecord => files.calls.find((call) => call.has_recording) as CallRecord;
	async function signedUrl(id: string = recorded().id): Promise<string> {
		const response = await get(`${files.baseUrl}/v1/calls/${encodeURIComponent(id)}/recording`);
		expect(response.status).toBe(200);
		return (await read(response)).url;
	}

	it('answers 404 for unknown calls and calls without a recording', async () => {
		const unknown = await get(`${files.baseUrl}/v1/calls/call_999999/recording`);
		expect(unknown.status).toBe(404);
		expect(await read(unknown)).toEqual({ detail: 'Call not found' });
		const silent = files.calls.find((call) => !call.has_recording) as CallRecord;
		const none = await get(`${files.baseUrl}/v1/calls/${silent.id}/recording`);
		expect(await read(none)).toEqual({ detail: 'Recording not found' });
	});

	it.each([
		['404', 404, { detail: 'Recording not found' }],
		['202', 202, { status: 'processing' }],
		['processing', 200, { status: 'processing', url: null }],
	] as const)(
		"answers %s while a new call's recording is processed, then its URL (switch over HTTP)",
		async (pendingAnswer, status, body) => {
			const control = connectEmulator(files.baseUrl);
			await control.setRecordingProcessing({ delayMs: 300, pendingAnswer });
			const [call] = await control.addCalls(1, { status: 'completed', has_recording: true });
			const url = `${files.baseUrl}/v1/calls/${call.id}/recording`;
			const pending = await get(url);
			expect(pending.status).toBe(status);
			expect(await read(pending)).toMatchObject(body);
			// Seeded calls are ready at once.
			const seeded = files.calls.slice(1).find((other) => other.has_recording) as CallRecord;
			expect((await get(`${files.baseUrl}/v1/calls/${seeded.id}/recording`)).status).toBe(200);
			await sleep(350);
			const ready = await get(url);
			expect(ready.status).toBe(200);
			expect(await read(ready)).toMatchObject({ status: 'completed', url: expect.any(String) });
			expect((await control.state()).recordingProcessing).toEqual({ delayMs: 300, pendingAnswer });
		},
	);

	it('signs a URL on the file origin and streams deterministic bytes from it', async () => {
		const call = recorded();
		const response = await get(`${files.baseUrl}/v1/calls/${call.id}/recording`);
		const body = await read(response);
		expect(body).toMatchObject({
			call_id: call.id,
			content_type: 'audio/mpeg',
			size_bytes: 300_000,
			duration_seconds: call.duration_seconds,
		});
		expect(body.url).toMatch(
			new RegExp(
				`^${files.fileBaseUrl}/recordings/${call.id}\\.mp3\\?expires=\\d+&signature=[0-9a-f]{64}$`,
			),
		);
		expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.now() + 14 * 60_000);

		const file = await fetch(body.url);
		expect(file.status).toBe(200);
		expect(file.headers.get('content-type')).toBe('audio/mpeg');
		expect(file.headers.get('content-length')).toBe('300000');
		expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${call.id}.mp3"`);
		const bytes = Buffer.from(await file.arrayBuffer());
		expect(bytes.subarray(0, 3).toString('latin1')).toBe('ID3');
		expect(bytes.equals(recordingBytes(call.id, 300_000))).toBe(true);
		expect(files.fileRequests[0]).toMatchObject({ origin: 'files', status: 200 });
	});

	it('URL-decodes the call id from the path', async () => {
		const [odd] = files.addCalls(1, { id: 'call a/b+c', has_recording: true });
		const url = await signedUrl(odd.id);
		const file = await fetch(url);
		expect(file.status).toBe(200);
		expect(file.headers.get('content-disposition')).toBe('attachment; filename="call_a_b_c.mp3"');
		await file.arrayBuffer();
	});

	it('rejects an Authorization header, a bad signature and an expired URL like S3', async () => {
		const url = await signedUrl();
		const withAuth = await fetch(url, { headers: bearer(DEMO_KEYS.full) });
		expect(withAuth.status).toBe(400);
		expect(await withAuth.text()).toContain(
			'<Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message>',
		);

		const tampered = await fetch(
			url.replace(/signature=./, (s) =>
				s.endsWith('0') ? `${s.slice(0, -1)}1` : `${s.slice(0, -1)}0`,
			),
		);
		expect(tampered.status).toBe(403);

		files.inject({ kind: 'expire-signed-urls' });
		const expired = await fetch(url);
		expect(expired.status).toBe(403);
		expect(expired.headers.get('content-type')).toBe('application/xml');
		expect(await expired.text()).toContain(
			'<Code>AccessDenied</Code><Message>Request has expired</Message>',
		);
		files.clearFaults();
		expect((await fetch(url)).status).toBe(200);
	});

	it('lets signed URLs really expire after signedUrlTtlMs', async () => {
		const shortLived = await start({ rateLimit: false, signedUrlTtlMs: 1 });
		const call = shortLived.calls.find((c) => c.has_recording) as CallRecord;
		const { url } = await read(await get(`${shortLived.baseUrl}/v1/calls/${call.id}/recording`));
		const expires = Number(new URL(url).searchParams.get('expires'));
		await sleep(expires * 1000 - Date.now() + 20);
		expect((await fetch(url)).status).toBe(403);
	});

	it('truncates a body: full Content-Length announced, half sent, connection cut', async () => {
		const url = await signedUrl();
		files.inject({ kind: 'truncate' });
		const file = await fetch(url);
		expect(file.headers.get('content-length')).toBe('300000');
		await expect(file.arrayBuffer()).rejects.toThrow();
		expect(files.fileRequests[0]).toMatchObject({ status: 200, fault: 'truncate' });
		const whole = await fetch(url); // count defaults to 1
		expect((await whole.arrayBuffer()).byteLength).toBe(300_000);
	});

	it('streams a large recording without buffering it', async () => {
		const big = await start({ rateLimit: false, recordingBytes: 50 * 1024 * 1024 });
		const call = big.calls.find((c) => c.has_recording) as CallRecord;
		const { url } = await read(await get(`${big.baseUrl}/v1/calls/${call.id}/recording`));
		const file = await fetch(url);
		const hash = createHash('sha256');
		let size = 0;
		for await (const chunk of file.body as unknown as AsyncIterable<Uint8Array>) {
			hash.update(chunk);
			size += chunk.length;
		}
		expect(size).toBe(50 * 1024 * 1024);
	});
});
