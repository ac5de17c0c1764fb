/**
 * The trigger checked once a night: one check takes the whole day, in executions of at most
 * Calls per Execution, waits for recordings still being processed, and an n8n killed in the
 * middle repeats at most the calls of the execution that was running.
 */
import type { IDataObject } from 'n8n-workflow';

import type { CallRecord, ListOrder } from '../../devkit/emulator';
import { idsOldestFirst as ids, useTriggerEmulators } from '../../devkit/engine/trigger';

const { activated } = useTriggerEmulators({ seedCalls: 5 });

const NIGHTLY = { item: [{ mode: 'everyDay', hour: 2, minute: 0 }] };
const recorded: Partial<CallRecord> = { status: 'completed', has_recording: true };

describe.each<ListOrder>(['newest-first', 'oldest-first'])('a nightly check, %s list', (order) => {
	test('takes a day larger than any bound the trigger had, each call once', async () => {
		const { emulator, trigger } = await activated(
			{ listOrder: order },
			{ pollTimes: NIGHTLY, options: { callsPerExecution: 100 } },
		);
		const day = ids(emulator.addCalls(1_200));
		expect(await trigger.poll()).toEqual(day);
		expect(trigger.executions).toHaveLength(13); // 12 of 100 calls, then the closing one
		expect(trigger.saved).toEqual(trigger.storedState());
		expect(await trigger.poll()).toEqual([]);
	});

	test('n8n killed during an execution: the next check repeats only that execution', async () => {
		const { emulator, trigger } = await activated(
			{ listOrder: order },
			{ pollTimes: NIGHTLY, options: { callsPerExecution: 10 } },
		);
		const day = ids(emulator.addCalls(45));
		trigger.killAtExecution = 3;
		await expect(trigger.poll()).rejects.toThrow();
		const beforeKill = trigger.executions.flat().map((item) => String(item.json.id));
		expect(beforeKill).toEqual(day.slice(0, 30));
		trigger.restartAfterKill();
		const after = await trigger.poll();
		// The 10 calls of the execution the kill cut off come again; nothing else does.
		expect(after).toEqual(day.slice(20));
		expect(await trigger.poll()).toEqual([]);
	});
});

describe('recordings still being processed when a nightly check starts', () => {
	test('the check waits for them and delivers them with their files, in the same check', async () => {
		const { emulator, trigger } = await activated(
			{ recordingBytes: 1_000 },
			{ pollTimes: NIGHTLY, downloadRecording: true, options: { callsPerExecution: 5 } },
		);
		const ready = ids(emulator.addCalls(8, recorded));
		emulator.setRecordingProcessing({ delayMs: 2_500, pendingAnswer: '202' });
		const late = ids(emulator.addCalls(3, recorded));
		const items = await trigger.pollItems();
		expect(items.map((item) => item.json.id)).toEqual([...ready, ...late]);
		expect(items.every((item) => item.binary?.data !== undefined)).toBe(true);
		const stored = trigger.storedState()['node:On New Call'] as IDataObject;
		expect(stored.position).not.toHaveProperty('heldCalls');
		expect(await trigger.poll()).toEqual([]);
	});

	test('checks more often than Wait for Recording leave them to the next check', async () => {
		const { emulator, trigger } = await activated(
			{ recordingBytes: 1_000 },
			{ pollTimes: { item: [{ mode: 'everyMinute' }] }, downloadRecording: true },
		);
		emulator.setRecordingProcessing({ delayMs: 60_000 });
		emulator.addCalls(1, recorded);
		const started = Date.now();
		expect(await trigger.poll()).toEqual([]);
		expect(Date.now() - started).toBeLessThan(2_000);
	});
});
