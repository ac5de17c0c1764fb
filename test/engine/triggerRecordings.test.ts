/**
 * The trigger's Download Recording: the file attached to each call, named after the call, with
 * its size and SHA-256, why a call comes without one, and the check's summary item.
 */
import { createHash } from 'crypto';

import { DEMO_KEYS, recordingBytes } from '../../devkit/emulator';
import { binaryBuffer } from '../../devkit/engine/harness';
import {
	TriggerUnderTest,
	idsOldestFirst as ids,
	useTriggerEmulators,
} from '../../devkit/engine/trigger';

const { emulatorWith, activated } = useTriggerEmulators({ seedCalls: 30 });
const recorded = { status: 'completed', has_recording: true } as const;
const missedCall = { status: 'missed', has_recording: false } as const;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

test('Download Recording attaches each recording, named after its call, with its size and SHA-256; a missed call comes without one, saying so', async () => {
	const emulator = await emulatorWith({ recordingBytes: 20_000 });
	const trigger = new TriggerUnderTest(
		emulator,
		{ downloadRecording: true, binaryPropertyName: 'audio', options: { waitForRecording: 0 } },
		{ timezone: 'Pacific/Kiritimati' }, // UTC+14: the call's date there is not its UTC date
	);
	await trigger.poll();
	const [call] = emulator.addCalls(1, recorded);
	const [missed] = emulator.addCalls(1, missedCall);

	const items = await trigger.pollItems();
	expect(items.map((item) => item.json.id)).toEqual([call.id, missed.id]);
	const audio = items[0].binary!.audio;
	const bytes = recordingBytes(call.id, 20_000);
	expect(audio.mimeType).toBe('audio/mpeg');
	expect((await binaryBuffer(audio)).equals(bytes)).toBe(true);
	const localDate = new Date(Date.parse(call.created_at) + 14 * 3600_000)
		.toISOString()
		.slice(0, 10);
	expect(items[0].json).toMatchObject({
		recordingStatus: 'downloaded',
		recordingMissing: false,
		fileName: `${call.id}.mp3`,
		fileSize: 20_000,
		sha256: sha256(bytes),
		callDate: localDate,
	});
	expect(items[1].binary).toBeUndefined();
	expect(items[1].json).toMatchObject({ recordingStatus: 'none', recordingMissing: true });
	expect(emulator.fileRequests.every((request) => !request.headers.authorization)).toBe(true);
});

test.each([
	['audio/mpeg', 'mp3'],
	['application/octet-stream', 'mp3'], // the extension of the host's own name
])(
	'a host that names every file alike: each file is named after its call (%s)',
	async (contentType, extension) => {
		const { emulator, trigger } = await activated(
			{
				recordingBytes: 2_000,
				recordingFileNames: 'same',
				recordingContentType: contentType,
			},
			{ downloadRecording: true },
		);
		const calls = emulator.addCalls(3, recorded);
		const items = await trigger.pollItems();
		const names = items.map((item) => item.binary!.data.fileName);
		expect(names).toEqual(ids(calls).map((id) => `${id}.${extension}`));
		expect(items.map((item) => item.json.hostFileName)).toEqual(calls.map(() => 'recording.mp3'));
		for (const item of items) {
			const bytes = recordingBytes(String(item.json.id), 2_000);
			expect(item.json.sha256).toBe(sha256(bytes));
		}
	},
);

test('Fetch Test Event with Download Recording includes the file', async () => {
	const emulator = await emulatorWith();
	emulator.addCalls(1, recorded);
	const trigger = new TriggerUnderTest(emulator, { downloadRecording: true });
	const [item] = await trigger.pollItems('manual');
	expect(item.json.id).toBe(emulator.calls[0].id);
	expect(item.binary?.data.fileName).toBe(`${emulator.calls[0].id}.mp3`);
});

test('a missing recordings:read scope fails the download, and the next poll retries the calls', async () => {
	const { emulator, trigger } = await activated(undefined, { downloadRecording: true });
	const pending = emulator.addCalls(2, recorded);
	trigger.credentials.apiKey = DEMO_KEYS.callsOnly;
	await expect(trigger.poll()).rejects.toThrow(/lacks the scope recordings:read/);
	trigger.credentials.apiKey = DEMO_KEYS.callsAndRecordings;
	const items = await trigger.pollItems();
	expect(items.map((item) => item.json.id)).toEqual(ids(pending));
	expect(items.every((item) => item.binary?.data !== undefined)).toBe(true);
});

describe('Add Summary Item', () => {
	test('ends a check that delivered calls with one item counting them', async () => {
		const { emulator, trigger } = await activated(
			{ recordingProcessing: { delayMs: 60_000 } },
			{
				downloadRecording: true,
				options: { summaryItem: true, waitForRecording: 0, callsPerExecution: 2 },
			},
		);
		emulator.addCalls(1, recorded); // still being processed: held for later
		emulator.setRecordingProcessing({ delayMs: 0 });
		emulator.addCalls(3, recorded);
		emulator.addCalls(1, missedCall);

		const items = await trigger.pollItems();
		expect(trigger.executions.map((execution) => execution.length)).toEqual([2, 2, 1]);
		expect(items.pop()!.json).toEqual({
			summary: true,
			callsDelivered: 4,
			withRecording: 3,
			missed: 1,
			stillProcessing: 0,
			heldForLater: 1,
			inFailedExecutions: 0,
			gaveUp: 0,
			checkedAt: expect.any(String),
		});
		expect(items.every((item) => item.json.summary === undefined)).toBe(true);
	});

	test('is off by default, and a check that delivered nothing adds none', async () => {
		const emulator = await emulatorWith();
		const plain = new TriggerUnderTest(emulator);
		const summarised = new TriggerUnderTest(emulator, { options: { summaryItem: true } });
		await plain.poll();
		await summarised.poll();
		expect(await summarised.poll()).toEqual([]);
		const calls = emulator.addCalls(2, recorded);
		expect(await plain.poll()).toEqual(ids(calls));
		expect(plain.executions.at(-1)).toEqual([]);
	});
});

test.each([
	['an HTML page', 'could not be read'],
	['"ready" without a link the node can read', 'has no link the node can read (status "ready"'],
])(
	'an answer for a recording that cannot be read (%s) fails the check, which keeps the call for the next',
	async (answer, message) => {
		const { emulator, trigger } = await activated({}, { downloadRecording: true });
		const [call] = emulator.addCalls(1, recorded);
		const path = `/v1/calls/${call.id}/recording`;
		if (answer === 'an HTML page') {
			emulator.inject({ kind: 'status', status: 200, body: '<html>Sign in</html>', path });
		} else {
			emulator.setRecordingFiles({ recordingUrlField: 'media', recordingReadyStatus: 'ready' });
		}
		await expect(trigger.poll()).rejects.toThrow(
			`The service's answer for the recording of call "${call.id}" ${message}`,
		);
		emulator.setRecordingFiles({ recordingUrlField: 'url', recordingReadyStatus: 'completed' });
		const [item] = await trigger.pollItems();
		expect(item.json).toMatchObject({ id: call.id, recordingStatus: 'downloaded' });
	},
);
