/**
 * The trigger's promise: a call stays due until an execution with it has succeeded (failed
 * executions, Give Up After), a call listed late comes once (Look Back), Calls Since redoes a
 * day, and n8n's durable scheduler (no position kept from publishing, a time budget per poll)
 * loses nothing. Driven as n8n drives the trigger (devkit/engine/trigger.ts).
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { CallRecord, Emulator, ListOrder } from '../../devkit/emulator';
import {
	TriggerUnderTest,
	idsOldestFirst as ids,
	listRequests,
	useTriggerEmulators,
} from '../../devkit/engine/trigger';

const { emulatorWith, activated } = useTriggerEmulators({ seedCalls: 30 });

const idsOf = (items: INodeExecutionData[]) =>
	items.filter((item) => item.json.summary !== true).map((item) => String(item.json.id));
const hasId = (id: string) => (items: INodeExecutionData[]) =>
	items.some((item) => item.json.id === id);

describe('calls of a failed execution', () => {
	test('come again at the next check, once, marked; the calls of executions that succeeded do not', async () => {
		const { emulator, trigger } = await activated({}, { options: { callsPerExecution: 5 } });
		const day = ids(emulator.addCalls(15));
		trigger.failWhen = hasId(day[6]); // the second execution: calls 5 to 9
		expect(await trigger.poll()).toEqual(day);
		trigger.failWhen = undefined;
		const again = await trigger.pollItems();
		expect(idsOf(again)).toEqual(day.slice(5, 10));
		expect(again.map((item) => item.json.failedExecutions)).toEqual([1, 1, 1, 1, 1]);
		trigger.restart();
		expect(await trigger.poll()).toEqual([]);
	});

	test('a missed call whose run failed comes again at the next check, without waiting for a recording again', async () => {
		const options = { waitForRecording: 0.02 }; // 1.2 s
		const missed = { status: 'missed', has_recording: false } as const;
		const { emulator, trigger } = await activated(
			{ recordingBytes: 1_000 },
			{ downloadRecording: true, options },
		);
		const [call] = ids(emulator.addCalls(1, missed));
		expect(await trigger.poll()).toEqual([]); // asked once: not there yet
		await sleep(1_300);
		trigger.failWhen = hasId(call);
		expect(await trigger.poll()).toEqual([call]);
		trigger.failWhen = undefined;
		const again = await trigger.pollItems();
		expect(again.map((item) => [item.json.id, item.json.recordingStatus])).toEqual([
			[call, 'none'],
		]);
	});

	test('with Deliver Failed Calls Again off, they do not', async () => {
		const options = { retryFailedCalls: false };
		const { emulator, trigger } = await activated({}, { options });
		const day = ids(emulator.addCalls(3));
		trigger.failWhen = () => true;
		expect(await trigger.poll()).toEqual(day);
		expect(await trigger.poll()).toEqual([]);
	});

	test('after Give Up After, one last attempt; failing again, they are counted and not due any more', async () => {
		const options = { processingLimitHours: 0, summaryItem: true };
		const { emulator, trigger } = await activated({}, { options });
		const [call] = ids(emulator.addCalls(1));
		trigger.failWhen = hasId(call);
		expect(await trigger.poll()).toEqual([call, 'undefined']);
		const last = await trigger.pollItems();
		expect(last[0].json).toMatchObject({ id: call, failedExecutions: 1, lastAttempt: true });
		expect(last[1].json).toMatchObject({ summary: true, inFailedExecutions: 1, gaveUp: 1 });
		expect(await trigger.poll()).toEqual([]);
	});
});

/** `count` calls `spacingMs` apart after the newest, each added on its own as calls come in. */
function addSpaced(emulator: Emulator, count: number, spacingMs: number): CallRecord[] {
	let at = Date.parse(emulator.calls[0].created_at);
	const added: CallRecord[] = [];
	for (let index = 0; index < count; index++) {
		at += spacingMs;
		added.unshift(...emulator.addCalls(1, { created_at: new Date(at).toISOString() }));
	}
	return added;
}

const LATE_MATRIX = (['newest-first', 'oldest-first'] as ListOrder[]).flatMap((listOrder) =>
	[100, 10].map((maxPageSize) => [listOrder, maxPageSize] as const),
);

describe.each(LATE_MATRIX)(
	'a call listed late on a %s list, pages of %d',
	(listOrder, maxPageSize) => {
		test('150 calls deep, 38 minutes before the newest: it comes once; with Look Back 0, not', async () => {
			for (const lookBackHours of [2, 0]) {
				const { emulator, trigger } = await activated(
					{ listOrder, maxPageSize },
					{ options: { lookBackHours } },
				);
				const delivered = addSpaced(emulator, 150, 15_000);
				expect(await trigger.poll()).toEqual(ids(delivered));
				const before = Date.parse(delivered[delivered.length - 1].created_at) - 10_000;
				const late = emulator.addCalls(
					1,
					{ created_at: new Date(before).toISOString() },
					{ listedLate: true },
				);
				expect(await trigger.poll()).toEqual(lookBackHours > 0 ? ids(late) : []);
				trigger.restart();
				expect(await trigger.poll()).toEqual([]);
			}
		});
	},
);

test('a check whose executions n8n no longer starts (a poll that lost its lease) stops; the next delivers those calls, each once', async () => {
	const { emulator, trigger } = await activated({}, { options: { callsPerExecution: 2 } });
	const day = ids(emulator.addCalls(12));
	trigger.noRunFrom = 3;
	await trigger.poll();
	// Executions 1 and 2 ran; the 3rd was not started, and the check stopped there.
	expect(trigger.executions.filter((items) => items.length > 0)).toHaveLength(3);
	trigger.noRunFrom = undefined;
	expect([...day.slice(0, 4), ...(await trigger.poll())]).toEqual(day);
	expect(await trigger.poll()).toEqual([]);
});

test('within a poll budget, a recording the service makes wait longer than the check has left is kept for the next check', async () => {
	const { emulator, trigger } = await activated(
		{ recordingBytes: 1_000 },
		{ downloadRecording: true, options: { waitForRecording: 0 } },
	);
	trigger.budgetMs = 30_000;
	const recorded = { status: 'completed', has_recording: true } as const;
	const day = ids(emulator.addCalls(2, recorded));
	// The first recording's address: 429, wait a minute (past the check's 20 s of taking calls).
	emulator.inject({ kind: 'status', status: 429, retryAfter: '60', path: '/v1/calls/' });
	const started = Date.now();
	expect(await trigger.poll()).toEqual([]);
	expect(Date.now() - started).toBeLessThan(10_000);
	expect(await trigger.poll()).toEqual(day);
});

test('within a poll budget, a call whose request would wait past the check for a turn on the key is kept for the next check', async () => {
	const { emulator, trigger } = await activated(
		{ recordingBytes: 1_000 },
		{ downloadRecording: true, options: { waitForRecording: 0 } },
	);
	// 6 requests a minute: the list and 5 recordings, then the key has no turn for a minute.
	trigger.credentials.requestsPerMinute = 6;
	trigger.budgetMs = 3_000;
	const day = ids(emulator.addCalls(8, { status: 'completed', has_recording: true }));
	const started = Date.now();
	expect(await trigger.poll()).toEqual(day.slice(0, 5));
	expect(Date.now() - started).toBeLessThan(3_000);
	trigger.credentials.requestsPerMinute = 0;
	expect(await trigger.poll()).toEqual(day.slice(5));
});

test('Calls Since set to another date on a running trigger: every call since then comes again, once', async () => {
	const emulator = await emulatorWith();
	const trigger = new TriggerUnderTest(emulator, {
		options: { callsSince: emulator.calls[9].created_at },
	});
	expect(await trigger.poll()).toEqual(ids(emulator.calls.slice(0, 10)));
	expect(await trigger.poll()).toEqual([]);
	trigger.reconfigure({ options: { callsSince: emulator.calls[19].created_at } });
	expect(await trigger.poll()).toEqual(ids(emulator.calls.slice(0, 20)));
	expect(await trigger.poll()).toEqual([]);
});

describe("n8n's durable scheduler", () => {
	const EVERY_MINUTE = { item: [{ mode: 'everyMinute' }] };

	test('a scheduled check finds no position from publishing: the calls since the check before it come', async () => {
		const emulator = await emulatorWith();
		const trigger = new TriggerUnderTest(emulator, { pollTimes: EVERY_MINUTE });
		trigger.activation = 'update';
		const justNow = new Date(Date.now() - 20_000).toISOString();
		const sincePublished = ids(emulator.addCalls(3, { created_at: justNow }));
		expect(await trigger.poll()).toEqual(sincePublished);
		expect(await trigger.poll()).toEqual([]);
	});

	test('with a schedule it cannot read, that check starts a day before it', async () => {
		const emulator = await emulatorWith();
		const cron = { item: [{ mode: 'custom', cronExpression: '0 2 * * *' }] };
		const trigger = new TriggerUnderTest(emulator, { pollTimes: cron });
		trigger.activation = 'update';
		const stamp = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000).toISOString();
		emulator.addCalls(1, { created_at: stamp(27) });
		const lastDay = ids(emulator.addCalls(2, { created_at: stamp(25) }));
		expect(await trigger.poll()).toEqual(lastDay);
	});

	test("a check stops taking calls within the poll's time budget; the next deliver the rest without reading the list, each call once", async () => {
		const { emulator, trigger } = await activated(
			{ maxPageSize: 3 },
			// Look Back 0: a check reads only what is newer than the last call it took.
			{ options: { callsPerExecution: 1, lookBackHours: 0 } },
		);
		trigger.budgetMs = 1_500;
		trigger.executionMs = 150;
		const day = ids(emulator.addCalls(12));
		const checks: string[][] = [];
		const reads: number[] = [];
		for (let check = 0; check < 6 && checks.flat().length < day.length; check++) {
			const before = listRequests(emulator).length;
			checks.push(await trigger.poll());
			reads.push(listRequests(emulator).length - before);
		}
		expect(checks[0].length).toBeGreaterThan(0);
		expect(checks[0].length).toBeLessThan(day.length);
		expect(checks.flat()).toEqual(day);
		// The first check read the day's pages; the next ones spend their time on the calls it kept,
		// without reading the list; once those are delivered, checks read it again.
		expect(reads[0]).toBeGreaterThan(1);
		expect(reads.slice(1)).toEqual(reads.slice(1).map(() => 0));
		const before = listRequests(emulator).length;
		expect(await trigger.poll()).toEqual([]);
		expect(listRequests(emulator).length - before).toBe(1);
	});
});
