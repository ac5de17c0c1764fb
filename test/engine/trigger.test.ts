/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The "On New Call" polling trigger, driven the way n8n drives it (devkit/engine/trigger.ts):
 * the node's `poll()` in n8n-core's real PollContext, against the API emulator.
 */
import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import type {
	CallRecord,
	Emulator,
	EmulatorOptions,
	ListOrder,
	PaginationStyle,
	RecordedRequest,
} from '../../devkit/emulator';
import {
	DEMO_KEYS,
	PAGE_NUMBER_STYLE,
	PENDING_RECORDING_ANSWERS,
	recordingBytes,
} from '../../devkit/emulator';
import { binaryBuffer } from '../../devkit/engine/harness';
import { TriggerUnderTest, useTriggerEmulators } from '../../devkit/engine/trigger';

beforeAll(async () => {
	await Container.get(BinaryDataService).init();
});

/** Ids in the order the trigger emits them, oldest first (the emulator lists newest first). */
const ids = (calls: CallRecord[]) => calls.map((call) => call.id).reverse();
const listRequests = (emulator: Emulator) =>
	emulator.requests.filter((request) => request.path === '/v1/calls');

/**
 * Runs `fn` when the API receives a request, before it is answered: the emulator logs each
 * request on arrival, so wrapping the log's push sees it synchronously.
 */
function onApiRequest(emulator: Emulator, fn: (request: RecordedRequest, index: number) => void) {
	const log = emulator.requests;
	const push = log.push.bind(log);
	let index = 0;
	log.push = (...records: RecordedRequest[]) => {
		const length = push(...records);
		for (const record of records) fn(record, index++);
		return length;
	};
}

const emulatorWith = useTriggerEmulators({ seedCalls: 30 });

/** A creation time shared by several calls, just after the newest call so far. */
const tieAfterNewest = (emulator: Emulator) =>
	new Date(Date.parse(emulator.calls[0].created_at) + 60_000).toISOString();

const ORDERS: ListOrder[] = ['newest-first', 'oldest-first'];
const TIME_FIELDS: Array<string | null> = ['created_at', 'timestamp', null];
/** A cursor, a Link header with next URLs, and page numbers. */
const STYLES: PaginationStyle[] = ['data-next_cursor', 'array-link-header', PAGE_NUMBER_STYLE];
const MATRIX = ORDERS.flatMap((order) =>
	TIME_FIELDS.flatMap((field) => STYLES.map((style) => [order, field, style] as const)),
);
/** List Order as the trigger's option names it. */
const optionFor = (order: ListOrder) => (order === 'newest-first' ? 'newest' : 'oldest');

describe.each(MATRIX)(
	'trigger on a %s list, time in %s, pagination %s',
	(listOrder, callTimeField, paginationStyle) => {
		const listOptions: EmulatorOptions = {
			listOrder,
			callTimeField,
			paginationStyle,
			maxPageSize: 3,
		};

		test('activation emits nothing; each new call comes once, oldest first, across restarts', async () => {
			const emulator = await emulatorWith(listOptions);
			const trigger = new TriggerUnderTest(emulator);
			expect(await trigger.poll()).toEqual([]);

			const added = emulator.addCalls(7);
			expect(await trigger.poll()).toEqual(ids(added));
			expect(await trigger.poll()).toEqual([]);
			const one = emulator.addCalls(1);
			expect(await trigger.poll()).toEqual(ids(one));
			const whileDown = emulator.addCalls(2);
			trigger.restart();
			expect(await trigger.poll()).toEqual(ids(whileDown));
			trigger.restart();
			expect(await trigger.poll()).toEqual([]);
		});

		test('calls that arrive between the pages of a poll are emitted by the next poll, once', async () => {
			const emulator = await emulatorWith(listOptions);
			const trigger = new TriggerUnderTest(emulator);
			await trigger.poll();

			const first = emulator.addCalls(10);
			let during: CallRecord[] = [];
			onApiRequest(emulator, (_request, index) => {
				// Just before the API answers the second page of the poll.
				if (index === 1) during = emulator.addCalls(4);
			});
			const emitted = [...(await trigger.poll()), ...(await trigger.poll())];
			expect(during).toHaveLength(4);
			expect(emitted).toEqual(ids([...during, ...first]));
			expect(await trigger.poll()).toEqual([]);
		});

		test('a poll takes every new call, in executions of at most Calls per Execution, oldest first', async () => {
			const emulator = await emulatorWith(listOptions);
			const trigger = new TriggerUnderTest(emulator, { options: { callsPerExecution: 3 } });
			await trigger.poll();
			const added = ids(emulator.addCalls(7));
			expect(await trigger.poll()).toEqual(added);
			// Three executions of calls, then the one without calls that saves the position.
			expect(trigger.executions.map((items) => items.length)).toEqual([3, 3, 1, 0]);
			expect(await trigger.poll()).toEqual([]);
			expect(trigger.executions).toEqual([]);
		});

		test('Fetch Test Event returns the most recent call and leaves the position alone', async () => {
			const emulator = await emulatorWith(listOptions);
			// Without times "most recent" is the list's order, which the user then names.
			const options = callTimeField === null ? { listOrder: optionFor(listOrder) } : {};
			const trigger = new TriggerUnderTest(emulator, { options });
			expect(await trigger.poll('manual')).toEqual([emulator.calls[0].id]);
			expect(trigger.storedState()['node:On New Call'] ?? {}).toEqual({});
			expect(await trigger.poll()).toEqual([]);
			const [newest] = emulator.addCalls(2);
			expect(await trigger.poll('manual')).toEqual([newest.id]);
		});

		if (callTimeField !== null) {
			test('Calls Since emits the calls created since then, oldest first, on the first poll only', async () => {
				const emulator = await emulatorWith(listOptions);
				const since = emulator.calls[9].created_at;
				const trigger = new TriggerUnderTest(emulator, { options: { callsSince: since } });
				expect(await trigger.poll()).toEqual(ids(emulator.calls.slice(0, 10)));
				const added = emulator.addCalls(2);
				expect(await trigger.poll()).toEqual(ids(added));
				expect(await trigger.poll()).toEqual([]);
			});
		}
	},
);

describe.each(ORDERS)('trigger on a %s list of 10 000 calls', (listOrder) => {
	test.each(['created_at', null])(
		'time in %s: a poll with 0 to 3 new calls costs at most 2 requests',
		async (callTimeField) => {
			const emulator = await emulatorWith({ listOrder, callTimeField, seedCalls: 10_000 });
			const trigger = new TriggerUnderTest(emulator);
			const costs: Record<string, number> = {};
			const measure = async (label: string, newCalls: number) => {
				const added = emulator.addCalls(newCalls);
				const before = listRequests(emulator).length;
				expect(await trigger.poll()).toEqual(ids(added));
				costs[label] = listRequests(emulator).length - before;
			};
			await measure('activation', 0);
			for (const [index, count] of [0, 1, 3, 0, 2, 3, 1].entries())
				await measure(`poll ${index + 1} (${count} new)`, count);
			const { activation, ...polls } = costs;
			expect(activation).toBeGreaterThan(0);
			// Without times the order of an oldest-first list is learnt from the first new calls: that
			// one poll also reads the first page. A failure shows the polls that cost more.
			const learning = callTimeField === null && listOrder === 'oldest-first' ? 1 : 0;
			const costly = Object.entries(polls).filter(([, count]) => count > 2);
			expect(costly.length <= learning ? [] : costly).toEqual([]);
			expect(Math.max(...Object.values(polls))).toBeLessThanOrEqual(3);
		},
	);
});

describe('trigger list order', () => {
	test('a stale remembered page falls back to a walk from the start, losing nothing', async () => {
		const emulator = await emulatorWith({ listOrder: 'oldest-first', maxPageSize: 5 });
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		const added = emulator.addCalls(3);
		emulator.inject({
			kind: 'status',
			status: 400,
			path: '/v1/calls',
			body: '{"detail":"Invalid cursor"}',
		});
		expect(await trigger.poll()).toEqual(ids(added));
		expect(await trigger.poll()).toEqual([]);
	});

	test('Fetch Test Event on an oldest-first list whose remembered page is stale still shows the newest call', async () => {
		const emulator = await emulatorWith({ listOrder: 'oldest-first', maxPageSize: 5 });
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		const [newest] = emulator.addCalls(1);
		// The remembered last page's request is refused as stale (an expired cursor).
		emulator.inject({ kind: 'status', status: 410, path: '/v1/calls' });
		expect(await trigger.poll('manual')).toEqual([newest.id]);
	});

	test('an oldest-first list too long to walk fails with what to set', async () => {
		const emulator = await emulatorWith({
			listOrder: 'oldest-first',
			maxPageSize: 1,
			seedCalls: 205,
		});
		const trigger = new TriggerUnderTest(emulator);
		await expect(trigger.poll()).rejects.toThrow(/longer than 200 pages/);
	});

	test('new ids inside the first page of a list without times fail the poll, saying what to set', async () => {
		const emulator = await emulatorWith({ callTimeField: null, maxPageSize: 3 });
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		const [a, b] = emulator.calls;
		const page = [{ id: a.id }, { id: 'call_inserted' }, { id: b.id }];
		emulator.inject({
			kind: 'status',
			status: 200,
			path: '/v1/calls',
			body: JSON.stringify({ data: page, next_cursor: 'x' }),
		});
		const failure = trigger.poll();
		await expect(failure).rejects.toThrow(/cannot tell where new calls appear/);
		await expect(failure).rejects.toMatchObject({
			description: expect.stringMatching(/List Order/),
		});
	});

	test('List Order Newest First on an oldest-first list with times fails instead of emitting nothing', async () => {
		const emulator = await emulatorWith({ listOrder: 'oldest-first' });
		const trigger = new TriggerUnderTest(emulator, { options: { listOrder: 'newest' } });
		await expect(trigger.poll()).rejects.toThrow(/comes oldest first .* reads it as newest first/);
	});

	test.each(ORDERS)(
		'calls of the same instant on a %s list, across pages, are each emitted once',
		async (listOrder) => {
			const emulator = await emulatorWith({ listOrder, maxPageSize: 2 });
			const created_at = tieAfterNewest(emulator);
			emulator.addCalls(5, { created_at });
			const trigger = new TriggerUnderTest(emulator);
			expect(await trigger.poll()).toEqual([]);
			const tied = emulator.addCalls(3, { created_at });
			expect(await trigger.poll()).toEqual(ids(tied));
			const later = emulator.addCalls(2);
			expect(await trigger.poll()).toEqual(ids(later));
			expect(await trigger.poll()).toEqual([]);
		},
	);
});

describe('trigger position', () => {
	test('an n8n restart between polls resumes from the saved position', async () => {
		const emulator = await emulatorWith();
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		const first = emulator.addCalls(2);
		expect(await trigger.poll()).toEqual(ids(first));

		const whileDown = emulator.addCalls(3);
		trigger.restart();
		expect(await trigger.poll()).toEqual(ids(whileDown));
		trigger.restart();
		expect(await trigger.poll()).toEqual([]);

		// Bounded and plain JSON: ids, the newest creation time and the order, nothing else.
		const stored = trigger.storedState()['node:On New Call'] as { position: IDataObject };
		expect(stored.position).toEqual({
			version: 1,
			queryKey: '[]',
			seenIds: expect.arrayContaining(ids([...first, ...whileDown])),
			newestCreatedAt: whileDown[0].created_at,
			listOrder: 'newest',
		});
	});

	test('the state stays bounded however many calls go by', async () => {
		const emulator = await emulatorWith({ seedCalls: 5 });
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		for (let round = 0; round < 3; round++) {
			const added = emulator.addCalls(300);
			expect(await trigger.poll()).toEqual(ids(added));
		}
		const stored = trigger.storedState()['node:On New Call'] as { position: { seenIds: string[] } };
		expect(stored.position.seenIds).toHaveLength(500);
		expect(stored.position.seenIds[0]).toBe(emulator.calls[0].id);
	});

	test('Query Parameters are sent with every page and filter the emitted calls', async () => {
		const emulator = await emulatorWith({ maxPageSize: 5 });
		const trigger = new TriggerUnderTest(emulator, {
			options: { queryParameters: { parameters: [{ name: 'direction', value: 'inbound' }] } },
		});
		await trigger.poll();
		const added = emulator.addCalls(12);
		const inbound = added.filter((call) => call.direction === 'inbound');
		expect(inbound.length).toBeGreaterThan(0);
		expect(await trigger.poll()).toEqual(ids(inbound));
		expect(listRequests(emulator).every((request) => request.query.direction === 'inbound')).toBe(
			true,
		);
	});

	test('two polls at once do not emit the same calls twice', async () => {
		const emulator = await emulatorWith();
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		const added = emulator.addCalls(3);
		const results = await Promise.all([trigger.poll(), trigger.poll()]);
		expect(results.flat()).toEqual(ids(added));
	});
});

describe('trigger errors', () => {
	test('a 503 beyond the retries fails the poll and keeps the position', async () => {
		const emulator = await emulatorWith();
		const trigger = new TriggerUnderTest(emulator, { options: { maxRetries: 1 } });
		await trigger.poll();
		const first = emulator.addCalls(2);
		expect(await trigger.poll()).toEqual(ids(first));

		const pending = emulator.addCalls(3);
		emulator.inject({ kind: 'status', status: 503, count: 2, path: '/v1/calls' });
		await expect(trigger.poll()).rejects.toThrow(/temporarily unavailable \(503\).*2 attempts/);
		expect(await trigger.poll()).toEqual(ids(pending));
	});

	test('a failure on a later page of a poll keeps the position', async () => {
		const emulator = await emulatorWith({ maxPageSize: 3 });
		const trigger = new TriggerUnderTest(emulator, { options: { maxRetries: 0 } });
		await trigger.poll();
		const pending = emulator.addCalls(7);
		onApiRequest(emulator, (_request, index) => {
			// Page 1 is answered; page 2 meets a 503, and maxRetries 0 gives up at once.
			if (index === 0) emulator.inject({ kind: 'status', status: 503, path: '/v1/calls' });
		});
		await expect(trigger.poll()).rejects.toThrow(/503/);
		expect(await trigger.poll()).toEqual(ids(pending));
	});

	test('401 and 403 say what is wrong; once fixed, nothing was lost', async () => {
		const emulator = await emulatorWith();
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		const pending = emulator.addCalls(2);

		trigger.credentials.apiKey = `pf_live_${'x'.repeat(43)}`;
		await expect(trigger.poll()).rejects.toThrow('API key missing or invalid (401)');
		trigger.credentials.apiKey = DEMO_KEYS.leadsOnly;
		await expect(trigger.poll()).rejects.toThrow(
			'The API key lacks the scope calls:read needed to list calls (403)',
		);
		trigger.credentials.apiKey = DEMO_KEYS.full;
		expect(await trigger.poll()).toEqual(ids(pending));
	});

	test('a missing recordings:read scope fails the download, and the next poll retries the calls', async () => {
		const emulator = await emulatorWith();
		const trigger = new TriggerUnderTest(emulator, { downloadRecording: true });
		await trigger.poll();
		const pending = emulator.addCalls(2, { has_recording: true, status: 'completed' });
		trigger.credentials.apiKey = DEMO_KEYS.callsOnly;
		await expect(trigger.poll()).rejects.toThrow(/lacks the scope recordings:read/);
		trigger.credentials.apiKey = DEMO_KEYS.callsAndRecordings;
		const items = await trigger.pollItems();
		expect(items.map((item) => item.json.id)).toEqual(ids(pending));
		expect(items.every((item) => item.binary?.data !== undefined)).toBe(true);
	});
});

describe('trigger options and test mode', () => {
	test('Fetch Test Event on an empty list returns nothing', async () => {
		const emulator = await emulatorWith({ seedCalls: 0 });
		expect(await new TriggerUnderTest(emulator).poll('manual')).toEqual([]);
	});

	test("Calls Since without a zone is read in the workflow's timezone", async () => {
		const emulator = await emulatorWith();
		const target = emulator.calls[4]; // 5 calls since
		// The same instant as wall-clock time in New York (UTC-5 in winter, when the seed calls are).
		const local = new Date(Date.parse(target.created_at) - 5 * 3600_000).toISOString().slice(0, 23);
		const trigger = new TriggerUnderTest(
			emulator,
			{ options: { callsSince: local } },
			{ timezone: 'America/New_York' },
		);
		expect(await trigger.poll()).toEqual(ids(emulator.calls.slice(0, 5)));
		expect(await trigger.poll()).toEqual([]);
	});

	test('Download Recording attaches each recording; with Wait for Recording 0 a call without one comes at once without a file', async () => {
		const emulator = await emulatorWith({ recordingBytes: 20_000 });
		const trigger = new TriggerUnderTest(emulator, {
			downloadRecording: true,
			binaryPropertyName: 'audio',
			options: { waitForRecording: 0 },
		});
		await trigger.poll();
		const [recorded] = emulator.addCalls(1, { status: 'completed', has_recording: true });
		const [missed] = emulator.addCalls(1, { status: 'missed', has_recording: false });

		const items = await trigger.pollItems();
		expect(items.map((item) => item.json.id)).toEqual([recorded.id, missed.id]);
		const audio = items[0].binary!.audio;
		expect(audio.mimeType).toBe('audio/mpeg');
		expect((await binaryBuffer(audio)).equals(recordingBytes(recorded.id, 20_000))).toBe(true);
		expect(items[1].binary).toBeUndefined();
		expect(items.map((item) => item.json.recordingMissing)).toEqual([false, true]);
		expect(emulator.fileRequests.every((request) => !request.headers.authorization)).toBe(true);
	});

	test('Fetch Test Event with Download Recording includes the file', async () => {
		const emulator = await emulatorWith();
		emulator.addCalls(1, { status: 'completed', has_recording: true });
		const trigger = new TriggerUnderTest(emulator, { downloadRecording: true });
		const [item] = await trigger.pollItems('manual');
		expect(item.json.id).toBe(emulator.calls[0].id);
		expect(item.binary?.data.fileName).toBe(`${emulator.calls[0].id}.mp3`);
	});
});

describe.each(PENDING_RECORDING_ANSWERS)(
	'Download Recording, the API answering %s while a recording is processed',
	(pendingAnswer) => {
		/** Recordings of added calls are ready 0.8 s later; the trigger waits up to 1.5 s. */
		const DELAY_MS = 800;
		const WAIT_MINUTES = 0.025;
		async function setUp(options: IDataObject = {}) {
			const emulator = await emulatorWith({
				recordingBytes: 5_000,
				recordingProcessing: { delayMs: DELAY_MS, pendingAnswer },
			});
			const trigger = new TriggerUnderTest(emulator, {
				downloadRecording: true,
				options: { waitForRecording: WAIT_MINUTES, ...options },
			});
			await trigger.poll();
			return { emulator, trigger };
		}
		const recorded = { status: 'completed', has_recording: true } as const;
		const missedCall = { status: 'missed', has_recording: false } as const;
		const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

		test('late recordings arrive with their file, a missed call comes once without one after the wait, across restarts, and no poll fails', async () => {
			const { emulator, trigger } = await setUp();
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

			await sleep(DELAY_MS + 100);
			trigger.restart();
			const ready = await trigger.pollItems();
			expect(ready.map((item) => item.json.id)).toEqual(ids(late));
			for (const item of ready) {
				const bytes = await binaryBuffer(item.binary!.data);
				expect(bytes.equals(recordingBytes(String(item.json.id), 5_000))).toBe(true);
				expect(item.json.recordingMissing).toBe(false);
			}

			await sleep(WAIT_MINUTES * 60_000 - DELAY_MS + 200);
			const after = await trigger.pollItems();
			expect(after.map((item) => [item.json.id, item.json.recordingMissing])).toEqual([
				[missed.id, true],
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

		test('Wait for Recording 0 emits a processing call at once, without a file and without failing', async () => {
			const { emulator, trigger } = await setUp({ waitForRecording: 0 });
			const [call] = emulator.addCalls(1, recorded);
			const items = await trigger.pollItems();
			expect(items.map((item) => [item.json.id, item.json.recordingMissing])).toEqual([
				[call.id, true],
			]);
			expect(await trigger.poll()).toEqual([]);
		});
	},
);

describe('held calls', () => {
	test('are not bounded: 105 calls held by one poll all come with the next, once', async () => {
		const emulator = await emulatorWith({
			recordingBytes: 1_000,
			recordingProcessing: { delayMs: 500 },
		});
		const trigger = new TriggerUnderTest(emulator, { downloadRecording: true });
		await trigger.poll();
		const added = ids(emulator.addCalls(105, { status: 'completed', has_recording: true }));
		expect(await trigger.poll()).toEqual([]);
		const stored = trigger.storedState()['node:On New Call'] as {
			position: { heldCalls: unknown[] };
		};
		expect(stored.position.heldCalls).toHaveLength(105);
		await new Promise((resolve) => setTimeout(resolve, 600));
		expect(await trigger.poll()).toEqual(added);
		expect(await trigger.poll()).toEqual([]);
	});

	test('a poll that fails while asking for a held call keeps it: it comes later, once, with its file', async () => {
		const emulator = await emulatorWith({ recordingProcessing: { delayMs: 300 } });
		const trigger = new TriggerUnderTest(emulator, {
			downloadRecording: true,
			options: { maxRetries: 0 },
		});
		await trigger.poll();
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
		expect(item.json).toMatchObject({ id: emulator.calls[0].id, recordingMissing: true });
		expect(item.binary).toBeUndefined();
	});
});
