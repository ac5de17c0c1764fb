/** The emulator itself: GET /v1/calls/{id}/recording and the file host behind its signed URLs. */
import type { CallRecord, Emulator } from '../../devkit/emulator';
import { DEMO_KEYS, recordingBytes } from '../../devkit/emulator';
import { bearer, get, read, useEmulators } from './kit';

const { start } = useEmulators();
const BYTES = 300_000;
let files: Emulator;
beforeAll(async () => {
	files = await start({ recordingBytes: BYTES });
});
beforeEach(() => files.reset());

const recorded = (): CallRecord => files.calls.find((call) => call.has_recording)!;
async function answer(id: string = recorded().id) {
	const response = await get(`${files.baseUrl}/v1/calls/${encodeURIComponent(id)}/recording`);
	expect(response.status).toBe(200);
	return read(response);
}

it.each([
	['by-call', 'audio/mpeg', (id: string) => [`/${id}.mp3`, `attachment; filename="${id}.mp3"`]],
	// Hosts that keep each file in a folder of its own.
	[
		'same',
		'audio/wav',
		(id: string) => [`/${id}/recording.mp3`, 'attachment; filename="recording.mp3"'],
	],
	['content', 'application/octet-stream', (id: string) => [`/${id}/content`, null]],
] as const)(
	"%s (%s): signs a URL on the file origin and streams the call's own bytes from it",
	async (recordingFileNames, recordingContentType, named) => {
		if (recordingFileNames !== 'by-call')
			files.setRecordingFiles({ recordingFileNames, recordingContentType });
		const call = recorded();
		const body = await answer(call.id);
		expect(body).toEqual({
			call_id: call.id,
			status: 'completed',
			url: expect.any(String),
			expires_at: expect.any(String),
			content_type: recordingContentType,
			size_bytes: BYTES,
			duration_seconds: call.duration_seconds,
		});
		const [path, disposition] = named(call.id);
		const url = new URL(body.url);
		expect(`${url.origin}${url.pathname}`).toBe(`${files.fileBaseUrl}/recordings${path}`);
		expect(url.search).toMatch(/^\?expires=\d+&signature=[0-9a-f]{64}$/);
		// 15 minutes.
		expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.now() + 14 * 60_000);
		const file = await fetch(body.url);
		const headers = ['content-type', 'content-length', 'content-disposition'];
		expect([file.status, ...headers.map((name) => file.headers.get(name))]).toEqual([
			200,
			recordingContentType,
			String(BYTES),
			disposition,
		]);
		const bytes = Buffer.from(await file.arrayBuffer());
		expect(bytes.subarray(0, 3).toString('latin1')).toBe('ID3');
		expect(bytes.equals(recordingBytes(call.id, BYTES))).toBe(true);
		expect(files.fileRequests).toEqual([expect.objectContaining({ origin: 'files', status: 200 })]);
	},
);

it('URL-decodes the call id from the path, and names the file after it', async () => {
	const [odd] = files.addCalls(1, { id: 'call a/b+c', has_recording: true });
	const file = await fetch((await answer(odd.id)).url);
	expect(file.status).toBe(200);
	expect(file.headers.get('content-disposition')).toBe('attachment; filename="call_a_b_c.mp3"');
	await file.arrayBuffer();
});

it('a URL handed out before a switch of names still serves, with the names of now', async () => {
	const { url } = await answer();
	files.setRecordingFiles({ recordingFileNames: 'same' });
	const old = await fetch(url);
	expect(old.headers.get('content-disposition')).toBe('attachment; filename="recording.mp3"');
	await old.arrayBuffer();
});

it("refuses like S3: a key, another call's or a tampered signature, an expired URL", async () => {
	const [first, second] = files.calls.filter((call) => call.has_recording);
	const { url } = await answer(first.id);
	const error = (code: string, message: string) =>
		`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
	const mismatch = error(
		'SignatureDoesNotMatch',
		'The request signature we calculated does not match the signature you provided.',
	);
	const tampered = url.replace(/.$/, (c: string) => (c === '0' ? '1' : '0'));
	const refusals = [
		[url, bearer(DEMO_KEYS.full), 400, error('InvalidArgument', 'Only one auth mechanism allowed')],
		[url.replace(first.id, second.id), {}, 403, mismatch],
		[tampered, {}, 403, mismatch],
	] as const;
	for (const [target, headers, status, text] of refusals) {
		const refused = await fetch(target, { headers });
		expect([refused.status, refused.headers.get('content-type')]).toEqual([
			status,
			'application/xml',
		]);
		expect(await refused.text()).toBe(text);
	}
	files.inject({ kind: 'expire-signed-urls' });
	const expired = await fetch(url);
	expect([expired.status, await expired.text()]).toEqual([
		403,
		error('AccessDenied', 'Request has expired'),
	]);
	files.clearFaults();
	expect((await fetch(url)).status).toBe(200);
});

it('words the answer as set: the link field, the status, a relative link the API origin serves like the file host', async () => {
	files.setRecordingFiles({
		recordingUrlField: 'audio_url',
		recordingUrlForm: 'relative',
		recordingReadyStatus: 'ready',
	});
	const call = recorded();
	const body = await answer(call.id);
	expect(body).toMatchObject({
		status: 'ready',
		audio_url: expect.stringMatching(/^\/recordings\//),
	});
	expect(body).not.toHaveProperty('url');
	const url = `${files.baseUrl}${body.audio_url}`;
	const withKey = await fetch(url, { headers: bearer(DEMO_KEYS.full) });
	expect([withKey.status, await withKey.text()]).toEqual([
		400,
		expect.stringContaining('InvalidArgument'),
	]);
	const file = await fetch(url);
	expect(Buffer.from(await file.arrayBuffer()).equals(recordingBytes(call.id, BYTES))).toBe(true);
	expect(files.requests.map((request) => [request.origin, request.status])).toEqual([
		['api', 200],
		['api', 400],
		['api', 200],
	]);
	expect(files.fileRequests).toEqual([]);
});
