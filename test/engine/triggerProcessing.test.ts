/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The trigger and recordings that are not ready yet, whichever way the API says so (202, a
 * "processing" answer without a URL, or 404): calls held for them across checks and restarts,
 * Keep Call Order, Wait for Recording and Give Up After.
 */
import type { IDataObject } from 'n8n-workflow';

import type { PendingRecordingAnswer } from '../../devkit/emulator';
import { recordingBytes } from '../../devkit/emulator';
import { binaryBuffer } from '../../devkit/engine/harness';
import {
	TriggerUnderTest,
	idsOldestFirst as ids,
	useTriggerEmulators,
} from '../../devkit/engine/trigger';

const { emulatorWith, activated } = useTriggerEmulators({ seedCalls: 30 });

/**
 * `Date.now()` moved on by `advance(ms)` as if that time had passed: it is the clock the
 * emulator says a recording is ready by and the trigger counts its waits on. Restored after
 * the test.
 */
function jumpingClock() {
	const now = Date.now.bind(Date);
	let ahead = 0;
	jest.spyOn(Date, 'now').mockImplementation(() => now() + ahead);
	return { advance: (ms: number) => (ahead += ms) };
}
afterEach(() => jest.restoreAllMocks());

// How each answer is read ('processing' too): getRecording.test.ts. The trigger holds on a 404
// (it may mean "not yet"), which Get Recording does not.
describe.each<PendingRecordingAnswer>(['404', '202'])(
	'Download Recording, the API answering %s while a recording is processed',
	(pendingAnswer) => {
		/** Recordings of added calls are ready 0.8 s later; the trigger waits up to 1.5 s. */
		const DELAY_MS = 800;
		const WAIT_MINUTES = 0.025;
		const setUp = async (options: IDataObject = {}) =>
			await activated(
				{ recordingBytes: 5_000, recordingProcessing: { delayMs: DELAY_MS, pendingAnswer } },
				{ downloadRecording: true, options: { waitForRecording: WAIT_MINUTES, ...options } },
			);
		const recorded = { status: 'completed', has_recording: true } as const;
		const missedCall = { status: 'missed', has_recording: false } as const;
		const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

		test('late recordings arrive with their file, a missed call comes once without one after the wait, across restarts, and no poll fails', async () => {
			// Recordings ready a minute after their call, Wait for Recording 2 minutes: each poll
			// lands well inside its window however slow the machine, as the clock jumps from one
			// window to the next instead of being slept through.
			const clock = jumpingClock();
			const { emulator, trigger } = await activated(
				{ recordingBytes: 5_000, recordingProcessing: { delayMs: 60_000, pendingAnswer } },
				{ downloadRecording: true, options: { waitForRecording: 2 } },
			);
			const late = emulator.addCalls(3, recorded);
			const [missed] = emulator.addCalls(1, missedCall);
			expect(await trigger.poll()).toEqual([]);
			const stored = trigger.storedState()['node:On New Call'] as { position: IDataObject };
			expect(stored.position.heldCalls).toHaveLength(4);

			// A call behind the held ones, whose recording is ready at once, is not delayed.
			emulator.setRecordingProcessing({ delayMs: 0 });
			const [behind] = emulator.addCalls(1, recorded);
			trigger.restart();
			const early = await trigger.pollItems();
			expect(early.map((item) => item.json.id)).toEqual([behind.id]);
			expect(early[0].binary?.data).toBeDefined();

			clock.advance(60_000); // the recordings are ready; the missed call waits a minute more
			trigger.restart();
			const ready = await trigger.pollItems();
			expect(ready.map((item) => item.json.id)).toEqual(ids(late));
			for (const item of ready) {
				const bytes = await binaryBuffer(item.binary!.data);
				expect(bytes.equals(recordingBytes(String(item.json.id), 5_000))).toBe(true);
				expect(item.json.recordingMissing).toBe(false);
			}

			clock.advance(60_000); // Wait for Recording is over
			const after = await trigger.pollItems();
			expect(after.map((item) => [item.json.id, item.json.recordingStatus])).toEqual([
				[missed.id, 'none'],
			]);
			expect(after[0].binary).toBeUndefined();
			trigger.restart();
			expect(await trigger.poll()).toEqual([]);
			expect(trigger.storedState()['node:On New Call']).not.toHaveProperty('position.heldCalls');
		});

		test('Keep Call Order holds the calls behind a held one and emits them in order', async () => {
			const { emulator, trigger } = await setUp({ keepCallOrder: true });
			const [first] = emulator.addCalls(1, recorded);
			emulator.setRecordingProcessing({ delayMs: 0 });
			const [second] = emulator.addCalls(1, recorded);
			expect(await trigger.poll()).toEqual([]);
			await sleep(DELAY_MS + 100);
			expect(await trigger.poll()).toEqual([first.id, second.id]);
			expect(await trigger.poll()).toEqual([]);
		});

		test('a recording still processing after Wait for Recording stays held: it comes with its file when ready', async () => {
			const { emulator, trigger } = await setUp({ waitForRecording: 0 });
			const [call] = emulator.addCalls(1, recorded);
			expect(await trigger.poll()).toEqual([]);
			expect(await trigger.poll()).toEqual([]);
			await sleep(DELAY_MS + 100);
			const items = await trigger.pollItems();
			expect(items.map((item) => [item.json.id, item.json.recordingStatus])).toEqual([
				[call.id, 'downloaded'],
			]);
			expect(await trigger.poll()).toEqual([]);
		});

		test('after Give Up After, the call comes once without a file, marked processing', async () => {
			const { emulator, trigger } = await setUp({ waitForRecording: 0, processingLimitHours: 0 });
			const [call] = emulator.addCalls(1, recorded);
			const items = await trigger.pollItems();
			expect(items.map((item) => item.json)).toEqual([
				expect.objectContaining({
					id: call.id,
					recordingStatus: 'processing',
					recordingMissing: true,
				}),
			]);
			expect(items[0].binary).toBeUndefined();
			await sleep(DELAY_MS + 100);
			expect(await trigger.poll()).toEqual([]);
		});
	},
);

describe('held calls', () => {
	test('are not bounded: 105 calls held by one poll all come with the next, once', async () => {
		// Ready a minute later, on a clock that jumps: asking for 105 takes a loaded machine seconds.
		const clock = jumpingClock();
		const { emulator, trigger } = await activated(
			{ recordingBytes: 1_000, recordingProcessing: { delayMs: 60_000 } },
			{ downloadRecording: true },
		);
		const added = ids(emulator.addCalls(105, { status: 'completed', has_recording: true }));
		expect(await trigger.poll()).toEqual([]);
		const stored = trigger.storedState()['node:On New Call'] as {
			position: { heldCalls: unknown[] };
		};
		expect(stored.position.heldCalls).toHaveLength(105);
		clock.advance(60_000);
		expect(await trigger.poll()).toEqual(added);
		expect(await trigger.poll()).toEqual([]);
	});

	test('a poll that fails while asking for a held call keeps it: it comes later, once, with its file', async () => {
		const { emulator, trigger } = await activated(
			{ recordingProcessing: { delayMs: 300 } },
			{ downloadRecording: true, options: { maxRetries: 0 } },
		);
		const [call] = emulator.addCalls(1, { status: 'completed', has_recording: true });
		expect(await trigger.poll()).toEqual([]);
		await new Promise((resolve) => setTimeout(resolve, 400));
		emulator.inject({ kind: 'status', status: 503, path: `/v1/calls/${call.id}/recording` });
		await expect(trigger.poll()).rejects.toThrow(/503/);
		const items = await trigger.pollItems();
		expect(items.map((item) => item.json.id)).toEqual([call.id]);
		expect(items[0].binary?.data).toBeDefined();
		expect(await trigger.poll()).toEqual([]);
	});

	test('Fetch Test Event does not wait: a call whose recording is processing comes without a file', async () => {
		const emulator = await emulatorWith({ recordingProcessing: { delayMs: 60_000 } });
		emulator.addCalls(1, { status: 'completed', has_recording: true });
		const trigger = new TriggerUnderTest(emulator, { downloadRecording: true });
		const [item] = await trigger.pollItems('manual');
		expect(item.json).toMatchObject({
			id: emulator.calls[0].id,
			recordingStatus: 'processing',
			recordingMissing: true,
		});
		expect(item.binary).toBeUndefined();
	});
});
