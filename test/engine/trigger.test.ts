/**
 * The "On New Call" polling trigger, driven the way n8n drives it (devkit/engine/trigger.ts):
 * the node's `poll()` in n8n-core's real PollContext, against the API emulator.
 */
import type {
	CallRecord,
	Emulator,
	EmulatorOptions,
	ListOrder,
	PaginationStyle,
} from '../../devkit/emulator';
import { PAGE_NUMBER_STYLE } from '../../devkit/emulator';
import {
	TriggerUnderTest,
	idsOldestFirst as ids,
	listRequests,
	onApiRequest,
	useTriggerEmulators,
} from '../../devkit/engine/trigger';

const { emulatorWith, activated } = useTriggerEmulators({ seedCalls: 30 });

/** A creation time shared by several calls, just after the newest call so far. */
const tieAfterNewest = (emulator: Emulator) =>
	new Date(Date.parse(emulator.calls[0].created_at) + 60_000).toISOString();

const ORDERS: ListOrder[] = ['newest-first', 'oldest-first'];
const TIME_FIELDS: Array<string | null> = ['created_at', 'timestamp', null];
/** A cursor, a Link header with next URLs, page numbers, Stripe's has_more, a bare list. */
const STYLES: PaginationStyle[] = [
	'data-next_cursor',
	'array-link-header',
	PAGE_NUMBER_STYLE,
	'data-has_more',
	'array-skip',
];
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
			// Nothing new: no execution at all. Executions of Calls per Execution: triggerNightly.test.ts.
			expect(trigger.executions).toEqual([]);
			const one = emulator.addCalls(1);
			expect(await trigger.poll()).toEqual(ids(one));
			const whileDown = emulator.addCalls(2);
			trigger.restart();
			expect(await trigger.poll()).toEqual(ids(whileDown));
			trigger.restart();
			expect(await trigger.poll()).toEqual([]);
		});

		test('calls that arrive between the pages of a poll are emitted by the next poll, once', async () => {
			const { emulator, trigger } = await activated(listOptions);

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

		test('a call listed late, between calls already delivered, comes once', async () => {
			const { emulator, trigger } = await activated(listOptions);
			const delivered = emulator.addCalls(6);
			expect(await trigger.poll()).toEqual(ids(delivered));
			// Stamped when it started, between the two newest delivered calls, but listed only now.
			const [newest, before] = delivered.map((call) => Date.parse(call.created_at));
			const created_at = new Date((newest + before) / 2).toISOString();
			const late = emulator.addCalls(1, { created_at }, { listedLate: true });
			expect(await trigger.poll()).toEqual(ids(late));
			trigger.restart();
			expect(await trigger.poll()).toEqual([]);
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

const COST_STYLES: PaginationStyle[] = ['data-next_cursor', 'array-skip'];
describe.each(ORDERS.flatMap((order) => COST_STYLES.map((style) => [order, style] as const)))(
	'trigger on a %s list of 10 000 calls, pagination %s',
	(listOrder, paginationStyle) => {
		test.each(['created_at', null])(
			'time in %s: a poll with 0 to 3 new calls costs at most 2 requests, one more on a bare list',
			async (callTimeField) => {
				const options: EmulatorOptions = { listOrder, callTimeField, paginationStyle };
				const emulator = await emulatorWith({ ...options, seedCalls: 10_000 });
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
				// A bare list (array-skip) ends with the probe that finds nothing: one request more.
				const probe = paginationStyle === 'array-skip' ? 1 : 0;
				const costly = Object.entries(polls).filter(([, count]) => count > 2 + probe);
				expect(costly.length <= learning ? [] : costly).toEqual([]);
				expect(Math.max(...Object.values(polls))).toBeLessThanOrEqual(3 + probe);
			},
		);
	},
);

describe('trigger list order', () => {
	test('a stale remembered page falls back to a walk from the start, losing nothing', async () => {
		const { emulator, trigger } = await activated({ listOrder: 'oldest-first', maxPageSize: 5 });
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
		const { emulator, trigger } = await activated({ listOrder: 'oldest-first', maxPageSize: 5 });
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
		const { emulator, trigger } = await activated({ callTimeField: null, maxPageSize: 3 });
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
