import type { IDataObject } from 'n8n-workflow';

import { trackCall } from '../../nodes/LeadCallAccessTrigger/calls';
import type { Position } from '../../nodes/LeadCallAccessTrigger/position';
import {
	MAX_REMEMBERED,
	callVerdict,
	readPosition,
	recordCalls,
	usablePosition,
	writePosition,
} from '../../nodes/LeadCallAccessTrigger/position';

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
	newestAt: at(7),
	queryKey: 'tag=a',
	order: 'oldest',
	tail: { request: { query: { page: 3 } }, ids: ['b', 'c'] },
	held: [{ call: call('h', 6), since: at(8) }],
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

	test('other Query Parameters with times: the handled calls and held calls stay, order and tail are found again', () => {
		expect(usablePosition(full, 'tag=b')).toEqual({
			seen: full.seen,
			newestAt: full.newestAt,
			queryKey: 'tag=b',
			held: full.held,
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

	test(`at most ${MAX_REMEMBERED} ids are remembered, the newest`, () => {
		const calls = Array.from({ length: MAX_REMEMBERED + 10 }, (_, index) => call(`c${index}`));
		const next = recordCalls({ seen: ['old'], queryKey: '' }, calls);
		expect(next.seen).toHaveLength(MAX_REMEMBERED);
		expect(next.seen[0]).toBe(`c${MAX_REMEMBERED + 9}`);
		expect(next.newestAt).toBeUndefined();
	});
});

describe('callVerdict', () => {
	const position: Position = { seen: ['a'], newestAt: at(5), queryKey: '' };
	const seen = new Set(position.seen);

	test.each([
		['created before the newest handled call', 'older', call('x', 4)],
		['not handled yet', 'new', call('x', 5)],
		['handled, at the newest handled time', 'known', call('a', 5)],
		['handled, without a time', 'reached', call('a')],
		['not handled, without a time', 'new', call('x')],
	])('%s: %s', (_, verdict, listed) => {
		expect(callVerdict(listed, position, seen)).toBe(verdict);
	});
});
