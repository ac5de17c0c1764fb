import { createHash } from 'crypto';

import type { PendingRecordingAnswer } from '../../devkit/emulator';
import { recordingBytes } from '../../devkit/emulator';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import { binaryBuffer } from '../../devkit/engine/harness';

describe('Get Recording', () => {
	const { emulator, credentials } = useEmulator({ seedCalls: 10, recordingBytes: 50_000 });
	const withRecording = () => emulator().calls.filter((call) => call.has_recording);

	test('outputs the signed URL answer plus callId, paired to each input', async () => {
		const calls = withRecording().slice(0, 2);
		const result = await run(
			workflowFrom('getRecording', { items: calls.map((call) => ({ id: call.id })) }),
			credentials(),
		);
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
		const result = await run(
			workflowFrom('getRecording', {
				items: [{ id: call.id }],
				parameters: { download: true, binaryPropertyName: 'audio' },
			}),
			credentials(),
		);
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
		const result = await run(
			workflowFrom('getRecording', { items: [{ id: 'a/b ?c#d' }] }),
			credentials(),
		);
		expect(emulator().requests[0].path).toBe('/v1/calls/a%2Fb%20%3Fc%23d/recording');
		expect(result.errors[0].error).toBe('No call with ID "a/b ?c#d" (404): check the call ID');
	});

	test('an empty call ID fails its item before any request', async () => {
		const result = await run(workflowFrom('getRecording', { items: [{ id: '' }] }), credentials());
		expect(result.errors[0].error).toMatch(/^Call ID is empty: map the "id" field of a call/);
		expect(emulator().requests).toHaveLength(0);
	});

	test('403 names the recordings:read scope', async () => {
		const { DEMO_KEYS } = await import('../../devkit/emulator');
		const [call] = withRecording();
		const result = await run(
			workflowFrom('getRecording', { items: [{ id: call.id }] }),
			credentials({ apiKey: DEMO_KEYS.callsOnly }),
		);
		expect(result.errors[0].error).toMatch(/lacks the scope recordings:read/);
	});

	test('an expired signed URL is refreshed once, then reported clearly', async () => {
		const [call] = withRecording();
		emulator().inject({ kind: 'expire-signed-urls' });
		const result = await run(
			workflowFrom('getRecording', { items: [{ id: call.id }], parameters: { download: true } }),
			credentials(),
		);
		expect(result.errors[0].error).toMatch(
			/refused the recording's download link, even a fresh one \(403\)/,
		);
		// Asked for the recording twice (first and refreshed URL), downloaded twice.
		expect(
			emulator().requests.filter((request) => request.path.endsWith('/recording')),
		).toHaveLength(2);
		expect(emulator().fileRequests.map((request) => request.status)).toEqual([403, 403]);
	});

	test('a truncated download is retried and the complete file is stored', async () => {
		const [call] = withRecording();
		emulator().inject({ kind: 'truncate', count: 1 });
		const result = await run(
			workflowFrom('getRecording', { items: [{ id: call.id }], parameters: { download: true } }),
			credentials(),
		);
		expect(result.errors).toEqual([]);
		const binary = result.output('Get Recording').success[0].binary!.data;
		expect((await binaryBuffer(binary)).equals(recordingBytes(call.id, 50_000))).toBe(true);
		expect(emulator().fileRequests).toHaveLength(2);
	});

	test('a call without a recording and an unknown call are told apart', async () => {
		const missed = emulator().calls.find((call) => !call.has_recording)!;
		const result = await run(
			workflowFrom('getRecording', { items: [{ id: missed.id }, { id: 'call_999999' }] }),
			credentials(),
		);
		expect(result.errors.map((error) => error.error)).toEqual([
			`Call "${missed.id}" has no recording (404): missed calls have none; for new calls, use the trigger with Download Recording`,
			'No call with ID "call_999999" (404): check the call ID',
		]);
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
			const recordingRequests = () =>
				emulator().requests.filter((request) => request.path.endsWith('/recording'));
			const pendingCall = (delayMs: number) => {
				emulator().setRecordingProcessing({ delayMs, pendingAnswer });
				return emulator().addCalls(1, { status: 'completed', has_recording: true })[0];
			};

			test('fails its item saying so', async () => {
				const call = pendingCall(60_000);
				const result = await run(
					workflowFrom('getRecording', { items: [{ id: call.id }] }),
					credentials(),
				);
				expect(result.errors[0].error).toMatch(message);
				expect(recordingRequests()).toHaveLength(1);
			});

			test('Wait for Recording asks again until it is ready (processing answers only)', async () => {
				const call = pendingCall(1500);
				const result = await run(
					workflowFrom('getRecording', {
						items: [{ id: call.id }],
						parameters: { download: true, options: { waitForRecording: 10 } },
					}),
					credentials(),
				);
				if (pendingAnswer === '404') {
					// A 404 is what a missed call gets too: no wait.
					expect(result.errors[0].error).toMatch(message);
					expect(recordingRequests()).toHaveLength(1);
					return;
				}
				expect(result.errors).toEqual([]);
				const binary = result.output('Get Recording').success[0].binary!.data;
				expect((await binaryBuffer(binary)).equals(recordingBytes(call.id, 50_000))).toBe(true);
				// Asked at once and 2 s later.
				expect(recordingRequests().map((request) => request.status)).toEqual([
					pendingAnswer === '202' ? 202 : 200,
					200,
				]);
			});
		},
	);
});
