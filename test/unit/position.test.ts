import type { IDataObject } from 'n8n-workflow';

import { trackCall } from '../../nodes/LeadCallAccessTrigger/calls';
import type { Position } from '../../nodes/LeadCallAccessTrigger/position';
import {
	MAX_REMEMBERED,
	callVerdict,
	callVerdicts,
	recordCalls,
	usablePosition,
} from '../../nodes/LeadCallAccessTrigger/position';
import { readPosition, writePosition } from '../../nodes/LeadCallAccessTrigger/storedPosition';

/**
 * The trigger's position in the workflow's static data (position.ts): what it keeps, what it
 * reads back after a restart, when it still applies, and where a listed call stands against it.
 */

const at = (minute: number) => Date.UTC(2026, 0, 1, 0, minute);
const call = (id: string, minute?: number) =>
	trackCall(minute === undefined ? { id } : { id, created_at: new Date(at(minute)).toISOString() });
/** Static data as n8n keeps it between polls and restarts: plain JSON. */
const reloaded = (staticData: IDataObject) => JSON.parse(JSON.stringify(staticData)) as IDataObject;

const full: Position = {
	seen: ['c', 'b'],
	seenAt: { c: at(7), b: at(6) },
	newestAt: at(7),
	floor: at(1),
	since: null,
	queryKey: 'tag=a',
	order: 'oldest',
	tail: { request: { query: { page: 3 } }, ids: ['b', 'c'] },
	head: ['c', 'x', 'b'],
	held: [{ call: call('h', 6), since: at(8) }],
	failed: [{ call: call('f', 5), since: at(8), failures: 2 }],
};

describe('readPosition and writePosition', () => {
	test('a written position reads back the same after a restart', () => {
		const staticData: IDataObject = {};
		writePosition(staticData, full);
		expect(readPosition(reloaded(staticData))).toEqual(full);
	});

	test('no position, another version or no ids: none (the trigger starts afresh)', () => {
		expect(readPosition({})).toBeUndefined();
		expect(readPosition({ position: { version: 2, seenIds: [], queryKey: '' } })).toBeUndefined();
		expect(readPosition({ position: { version: 1, queryKey: '' } })).toBeUndefined();
	});

	test('an unchanged position leaves static data untouched, so n8n saves nothing', () => {
		const staticData: IDataObject = {};
		writePosition(staticData, full);
		const stored = staticData.position;
		writePosition(staticData, { ...full, seen: [...full.seen] });
		expect(staticData.position).toBe(stored);
		writePosition(staticData, { ...full, seen: ['d', ...full.seen] });
		expect(staticData.position).not.toBe(stored);
	});

	test('held calls: entries without a call or its id are dropped, all others kept', () => {
		const heldCalls = [
			{ call: { name: 'no id' }, heldSince: new Date(at(1)).toISOString() },
			'not an entry',
			{ call: 'not a call', heldSince: new Date(at(1)).toISOString() },
			...Array.from({ length: 105 }, (_, index) => ({
				call: { id: `h${index}` },
				heldSince: new Date(at(2)).toISOString(),
			})),
		];
		const position = readPosition({
			position: { version: 1, queryKey: '', seenIds: [], heldCalls },
		});
		expect(position?.held).toHaveLength(105);
		expect(position?.held?.[0]).toEqual({ call: trackCall({ id: 'h0' }), since: at(2) });
	});

	test('a position written before 0.4: its newest call is its floor, and its Calls Since is taken as known', () => {
		const stored = {
			version: 1,
			queryKey: '',
			seenIds: ['a'],
			newestCreatedAt: '2026-01-01T00:05:00Z',
		};
		const position = readPosition({ position: stored });
		expect(position).toMatchObject({ floor: at(5), newestAt: at(5), failed: [] });
		expect(position?.since).toBeUndefined();
	});

	test('a position without held calls stores none', () => {
		const staticData: IDataObject = {};
		writePosition(staticData, { ...full, held: [] });
		expect(staticData.position).not.toHaveProperty('heldCalls');
	});
});

describe('usablePosition', () => {
	test('the same Query Parameters: the stored position as it is', () => {
		expect(usablePosition(full, full.queryKey)).toBe(full);
	});

	test('other Query Parameters with times: the handled calls and held calls stay, order, tail and head are found again', () => {
		expect(usablePosition(full, 'tag=b')).toEqual({
			seen: full.seen,
			seenAt: full.seenAt,
			newestAt: full.newestAt,
			floor: full.floor,
			since: full.since,
			queryKey: 'tag=b',
			held: full.held,
			failed: full.failed,
		});
	});

	test('other Query Parameters without times: none (the ids alone may be hidden by the filter)', () => {
		expect(usablePosition({ ...full, newestAt: undefined }, 'tag=b')).toBeUndefined();
	});
});

describe('recordCalls', () => {
	test('handled calls go first, newest first, once each; the newest time is kept', () => {
		const start: Position = { seen: ['b', 'a'], newestAt: at(5), queryKey: '' };
		const next = recordCalls(start, [call('b', 5), call('c', 6), call('d', 4)]);
		expect(next.seen).toEqual(['d', 'c', 'b', 'a']);
		expect(next.newestAt).toBe(at(6));
	});

	test('with Look Back, every id created inside the window is kept, beyond the last ones', () => {
		const start: Position = { seen: [], queryKey: '', lookBackMs: 10 * 60_000 };
		const calls = Array.from({ length: MAX_REMEMBERED + 100 }, (_, index) =>
			call(`c${index}`, index < 50 ? 0 : 30),
		);
		const next = recordCalls(start, calls);
		// The 50 created at minute 0 are 30 minutes before the newest: outside the 10-minute window.
		expect(next.seen).toHaveLength(MAX_REMEMBERED + 50);
		expect(next.seen).not.toContain('c0');
		expect(Object.keys(next.seenAt ?? {})).toHaveLength(MAX_REMEMBERED + 50);
	});

	test(`at most ${MAX_REMEMBERED} ids are remembered, the newest`, () => {
		const calls = Array.from({ length: MAX_REMEMBERED + 10 }, (_, index) => call(`c${index}`));
		const next = recordCalls({ seen: ['old'], queryKey: '' }, calls);
		expect(next.seen).toHaveLength(MAX_REMEMBERED);
		expect(next.seen[0]).toBe(`c${MAX_REMEMBERED + 9}`);
		expect(next.newestAt).toBeUndefined();
	});
});

describe('callVerdict with Look Back', () => {
	// Newest handled call at minute 30, a 10-minute window, started at minute 15.
	const position: Position = {
		seen: ['a'],
		newestAt: at(30),
		floor: at(15),
		lookBackMs: 10 * 60_000,
		queryKey: '',
	};
	test.each([
		['not handled, inside the window', 'new', call('x', 21)],
		['not handled, at the window start', 'new', call('x', 20)],
		['not handled, before the window', 'older', call('x', 19)],
		['handled, inside the window', 'known', call('a', 25)],
	])('%s: %s', (_, verdict, listed) => {
		expect(callVerdict(listed, position, new Set(position.seen))).toBe(verdict);
	});

	test('the window never reaches before the floor, even for a call listed since', () => {
		const wide = { ...position, lookBackMs: 60 * 60_000 };
		expect(callVerdict(call('x', 16), wide, new Set())).toBe('new');
		expect(callVerdict(call('x', 14), wide, new Set())).toBe('older');
		const listedSince = { pastHandled: false, listedSince: true };
		expect(callVerdict(call('x', 14), wide, new Set(), listedSince)).toBe('older');
	});
});

describe('callVerdict', () => {
	const position: Position = { seen: ['a'], newestAt: at(5), queryKey: '' };
	const seen = new Set(position.seen);
	const listedSince = { pastHandled: false, listedSince: true };
	const pastHandled = { pastHandled: true, listedSince: false };

	test.each([
		['created before the newest handled call, Look Back 0', 'older', call('x', 4), undefined],
		['not handled yet', 'new', call('x', 5), undefined],
		['handled, at the newest handled time', 'known', call('a', 5), undefined],
		['handled, without a time', 'reached', call('a'), undefined],
		['not handled, without a time', 'new', call('x'), undefined],
		['created before the newest handled call but listed since', 'new', call('x', 4), listedSince],
		['handled, and listed since (it was not on the page)', 'known', call('a', 5), listedSince],
		['not handled, without a time, listed past a handled call', 'older', call('x'), pastHandled],
		[
			'not handled, without a time, listed past a handled call and since',
			'new',
			call('x'),
			{ pastHandled: true, listedSince: true },
		],
	])('%s: %s', (_, verdict, listed, placement) => {
		expect(callVerdict(listed, position, seen, placement)).toBe(verdict);
	});
});

/**
 * Where a call is listed against what the last check read there: a call listed since between two
 * calls it read is new whatever its time (stamped when it started, listed when it ended); one
 * listed past all of them stays older.
 */
describe('callVerdicts', () => {
	test('newest first: a call listed since between calls the last check read is new, whatever its time', () => {
		// The last check read c, x (older, before the start), b; 'late' and 'below' came since.
		const position: Position = { seen: ['c', 'b'], newestAt: at(9), queryKey: '' };
		const listed = [call('n', 10), call('c', 9), call('late', 8), call('x', 7), call('b', 5)];
		const below = call('below', 4);
		expect(callVerdicts([...listed, below], 'newest', position, ['c', 'x', 'b'])).toEqual([
			'new',
			'known',
			'new',
			'older',
			'older',
			'older',
		]);
	});

	test('newest first without times: the same, by list order alone', () => {
		const position: Position = { seen: ['c', 'b'], queryKey: '' };
		const listed = ['n', 'c', 'late', 'x', 'b', 'below'].map((id) => call(id));
		expect(callVerdicts(listed, 'newest', position, ['c', 'x', 'b'])).toEqual([
			'new',
			'reached',
			'new',
			'older',
			'reached',
			'older',
		]);
	});

	test("oldest first: only between the remembered page's calls; one shifted onto its top stays older", () => {
		// Read again from the remembered page ['a', 'b']: an insertion before it shifts 'p' onto it.
		const position: Position = { seen: ['b', 'a'], newestAt: at(5), queryKey: '' };
		const listed = [call('p', 1), call('a', 3), call('late', 4), call('b', 5), call('n', 6)];
		expect(callVerdicts(listed, 'oldest', position, ['a', 'b'])).toEqual([
			'older',
			'older',
			'new',
			'known',
			'new',
		]);
	});

	test('a check that reads elsewhere (from the start) has nothing to compare: times decide', () => {
		const position: Position = { seen: ['b', 'a'], newestAt: at(5), queryKey: '' };
		const listed = [call('a', 3), call('late', 4), call('b', 5)];
		expect(callVerdicts(listed, 'oldest', position, undefined)).toEqual([
			'older',
			'older',
			'known',
		]);
	});
});
