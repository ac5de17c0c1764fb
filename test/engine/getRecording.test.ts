import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { PendingRecordingAnswer } from '../../devkit/emulator';
import { DEMO_KEYS, recordingBytes } from '../../devkit/emulator';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import { binaryBuffer } from '../../devkit/engine/harness';

describe('Get Recording', () => {
	const { emulator, credentials } = useEmulator({ seedCalls: 10, recordingBytes: 50_000 });
	const withRecording = () => emulator().calls.filter((call) => call.has_recording);
	/** Get Recording over these call ids. */
	const getRecording = async (
		ids: string[],
		parameters?: IDataObject,
		apiKey: string = DEMO_KEYS.full,
	) =>
		await run(
			workflowFrom('getRecording', { items: ids.map((id) => ({ id })), parameters }),
			credentials({ apiKey }),
		);
	/** The bytes of the first item's file, as n8n stored them. */
	const storedFile = async (result: Awaited<ReturnType<typeof getRecording>>) =>
		await binaryBuffer(result.output('Get Recording').success[0].binary!.data);
	const recordingRequests = () =>
		emulator().requests.filter((request) => request.path.endsWith('/recording'));

	test('outputs the signed URL answer plus callId, paired to each input', async () => {
		const calls = withRecording().slice(0, 2);
		const result = await getRecording(calls.map((call) => call.id));
		expect(result.errors).toEqual([]);
		expect(result.success).toEqual(
			calls.map((call) =>
				expect.objectContaining({
					callId: call.id,
					url: expect.stringContaining(emulator().fileBaseUrl),
				}),
			),
		);
		expect(emulator().fileRequests).toHaveLength(0);
	});

	test('Download stores the file as binary with its mime type and name, without sending the key to the file host', async () => {
		const [call] = withRecording();
		const result = await getRecording([call.id], { download: true, binaryPropertyName: 'audio' });
		expect(result.errors).toEqual([]);
		const [item] = result.output('Get Recording').success;
		const binary = item.binary!.audio;
		expect(binary.mimeType).toBe('audio/mpeg');
		expect(binary.fileName).toBe(`${call.id}.mp3`);
		const bytes = recordingBytes(call.id, 50_000);
		expect((await binaryBuffer(binary)).equals(bytes)).toBe(true);
		// What an archive can check the file against: the stored file's size and SHA-256.
		expect(item.json).toMatchObject({
			fileName: `${call.id}.mp3`,
			hostFileName: `${call.id}.mp3`,
			fileSize: 50_000,
			sha256: createHash('sha256').update(bytes).digest('hex'),
		});

		const [fileRequest] = emulator().fileRequests;
		expect(fileRequest.status).toBe(200);
		expect(fileRequest.headers.authorization).toBeUndefined();
	});

	test('the call ID is URL-encoded into a single path segment', async () => {
		const result = await getRecording(['a/b ?c#d']);
		expect(emulator().requests[0].path).toBe('/v1/calls/a%2Fb%20%3Fc%23d/recording');
		expect(result.errors[0].error).toBe('No call with ID "a/b ?c#d" (404): check the call ID');
	});

	test('an empty call ID fails its item before any request', async () => {
		const result = await getRecording(['']);
		expect(result.errors[0].error).toMatch(/^Call ID is empty: map the "id" field of a call/);
		expect(emulator().requests).toHaveLength(0);
	});

	test('403 names the recordings:read scope', async () => {
		const result = await getRecording([withRecording()[0].id], undefined, DEMO_KEYS.callsOnly);
		expect(result.errors[0].error).toMatch(/lacks the scope recordings:read/);
	});

	test('an expired signed URL is refreshed once, then reported clearly', async () => {
		emulator().inject({ kind: 'expire-signed-urls' });
		const result = await getRecording([withRecording()[0].id], { download: true });
		expect(result.errors[0].error).toMatch(
			/refused the recording's download link, even a fresh one \(403\)/,
		);
		// Asked for the recording twice (first and refreshed URL), downloaded twice.
		expect(recordingRequests()).toHaveLength(2);
		expect(emulator().fileRequests.map((request) => request.status)).toEqual([403, 403]);
	});

	test('a truncated download is retried and the complete file is stored', async () => {
		const [call] = withRecording();
		emulator().inject({ kind: 'truncate', count: 1 });
		const result = await getRecording([call.id], { download: true });
		expect(result.errors).toEqual([]);
		expect((await storedFile(result)).equals(recordingBytes(call.id, 50_000))).toBe(true);
		expect(emulator().fileRequests).toHaveLength(2);
	});

	test('a call without a recording and an unknown call are told apart', async () => {
		const missed = emulator().calls.find((call) => !call.has_recording)!;
		const result = await getRecording([missed.id, 'call_999999']);
		expect(result.errors.map((error) => error.error)).toEqual([
			`Call "${missed.id}" has no recording (404): missed calls have none; for new calls, use the trigger with Download Recording`,
			'No call with ID "call_999999" (404): check the call ID',
		]);
	});

	// How the answer's link is read, every field name and form: test/unit/recordingAnswer.test.ts.
	test.each([
		['under audio_url', { recordingUrlField: 'audio_url' }, 'files'],
		['a path on the API (relative)', { recordingUrlForm: 'relative' }, 'api'],
	] as const)(
		'a ready recording whose link is %s is downloaded, without the key',
		async (_, links, origin) => {
			emulator().setRecordingFiles(links);
			const [call] = withRecording();
			const result = await getRecording([call.id], { download: true });
			expect(result.errors).toEqual([]);
			expect((await storedFile(result)).equals(recordingBytes(call.id, 50_000))).toBe(true);
			const files = [...emulator().requests, ...emulator().fileRequests].filter((request) =>
				request.path.startsWith('/recordings/'),
			);
			expect(files).toEqual([expect.objectContaining({ origin, status: 200 })]);
			expect(files[0].headers.authorization).toBeUndefined();
		},
	);

	test('a recording the answer says is ready, without a link the node can read, fails at once naming its fields', async () => {
		emulator().setRecordingFiles({ recordingUrlField: 'media', recordingReadyStatus: 'ready' });
		const [call] = withRecording();
		const result = await getRecording([call.id], { options: { waitForRecording: 10 } });
		expect(result.errors[0].error).toBe(
			`The service's answer for the recording of call "${call.id}" has no link the node can read (status "ready"; its fields: call_id, status, media, expires_at, content_type, size_bytes, duration_seconds): check the credential's Base URL; if it is right, report this message to the node's maintainers through its npm page, https://www.npmjs.com/package/n8n-nodes-lead-call-access`,
		);
		expect(recordingRequests()).toHaveLength(1);
	});

	describe.each([
		[
			'202',
			/still being processed( \(status "processing"\))?: run it again in a few minutes, or set Options › Wait for Recording$/,
		],
		['processing', /still being processed \(status "processing"\): run it again in a few minutes/],
		['404', /has no recording \(404\)/],
	] as Array<[PendingRecordingAnswer, RegExp]>)(
		'a recording still being processed, the API answering %s',
		(pendingAnswer, message) => {
			const pendingCall = (delayMs: number) => {
				emulator().setRecordingProcessing({ delayMs, pendingAnswer });
				return emulator().addCalls(1, { status: 'completed', has_recording: true })[0];
			};

			test('fails its item saying so', async () => {
				const result = await getRecording([pendingCall(60_000).id]);
				expect(result.errors[0].error).toMatch(message);
				expect(recordingRequests()).toHaveLength(1);
			});

			test('Wait for Recording asks again until it is ready (processing answers only)', async () => {
				const call = pendingCall(1500);
				const waiting = { download: true, options: { waitForRecording: 10 } };
				const result = await getRecording([call.id], waiting);
				if (pendingAnswer === '404') {
					// A 404 is what a missed call gets too: no wait.
					expect(result.errors[0].error).toMatch(message);
					expect(recordingRequests()).toHaveLength(1);
					return;
				}
				expect(result.errors).toEqual([]);
				expect((await storedFile(result)).equals(recordingBytes(call.id, 50_000))).toBe(true);
				// Asked at once and 2 s later.
				expect(recordingRequests().map((request) => request.status)).toEqual([
					pendingAnswer === '202' ? 202 : 200,
					200,
				]);
			});
		},
	);
});
