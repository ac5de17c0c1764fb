import type { IDataObject } from 'n8n-workflow';

import type { TrackedCall } from '../../nodes/LeadCallAccessTrigger/calls';
import type { CallPage } from '../../nodes/shared/calls/callPages';
import type { NextPage } from '../../nodes/shared/calls/pagination';
import type { Position } from '../../nodes/LeadCallAccessTrigger/position';
import {
	findNewCalls,
	findStartCalls,
	findTailCalls,
} from '../../nodes/LeadCallAccessTrigger/callsList';

/**
 * Reading the calls list until the position (callsList.ts), over plain async iterables: list
 * shapes the emulator does not produce. The trigger suite (test/engine/trigger.test.ts) drives
 * the same walk through n8n's poll.
 */

const at = (minute: number) => Date.UTC(2026, 0, 1, 0, minute);
const call = (id: string, minute?: number): IDataObject =>
	minute === undefined ? { id } : { id, created_at: new Date(at(minute)).toISOString() };
const idsOf = (calls: TrackedCall[]) => calls.map((tracked) => tracked.id);
const position = (seen: string[], newestAt?: number): Position => ({
	seen,
	newestAt,
	queryKey: '',
});

async function* pagesOf(...pages: IDataObject[][]) {
	for (const calls of pages) yield { calls, request: undefined, arrivedDuringWalk: 0 };
}

/** The new calls of a newest-first list, oldest first, and the head once `handled` are handled. */
async function newestFirst(
	pages: AsyncIterable<CallPage>,
	from: Position,
	handled?: number,
	requireTimes = false,
) {
	const { emitted, headAfter } = await findNewCalls(pages, from, { requireTimes });
	return { emitted: idsOf(emitted), head: headAfter(handled ?? emitted.length) };
}

describe('a newest-first list', () => {
	test('an unseen call at the newest instant is new even when it follows a handled one', async () => {
		const pages = pagesOf([call('a', 5), call('b', 5), call('c', 4)], [call('d', 3)]);
		const { emitted } = await newestFirst(pages, position(['a'], at(5)));
		expect(emitted).toEqual(['b']);
	});

	test('without creation times the list order alone marks the position', async () => {
		let pagesRead = 0;
		async function* counted() {
			for (const calls of [[call('x'), call('y')], [call('a'), call('z')], [call('q')]]) {
				pagesRead++;
				yield { calls, request: undefined, arrivedDuringWalk: 0 };
			}
		}
		const { emitted } = await newestFirst(counted(), position(['a', 'q']));
		expect(emitted).toEqual(['y', 'x']);
		expect(pagesRead).toBe(2);
	});

	test('a page slightly out of order loses no call', async () => {
		const pages = pagesOf([call('n1', 9), call('old', 4), call('n2', 8), call('older', 3)]);
		const { emitted } = await newestFirst(pages, position(['old'], at(5)));
		expect(emitted).toEqual(['n2', 'n1']);
	});

	test('without times the page where a handled call appears is read to its end: a call listed since between handled calls is new', async () => {
		let pagesRead = 0;
		async function* counted() {
			for (const calls of [[call('n'), call('a'), call('late'), call('b')], [call('q')]]) {
				pagesRead++;
				yield { calls, request: undefined, arrivedDuringWalk: 0 };
			}
		}
		const from = { ...position(['a', 'b']), head: ['a', 'b'] };
		expect((await newestFirst(counted(), from)).emitted).toEqual(['late', 'n']);
		expect(pagesRead).toBe(1);
	});

	test('the head: the top of what was read, the calls not handled yet left out', async () => {
		const pages = pagesOf([call('n', 10), call('a', 8), call('late', 7), call('b', 6)]);
		const from = { ...position(['a', 'b'], at(8)), head: ['a', 'b'] };
		const { emitted, head } = await newestFirst(pages, from, 1);
		expect(emitted).toEqual(['late', 'n']);
		expect(head).toEqual(['a', 'late', 'b']);
	});

	test('calls without an id are refused', async () => {
		await expect(findStartCalls(pagesOf([{ name: 'no id' }]))).rejects.toThrow(/has no id/);
	});

	test('Calls Since needs creation times', async () => {
		const pages = pagesOf([call('a')]);
		await expect(newestFirst(pages, position([], at(0)), 0, true)).rejects.toThrow(
			/Calls Since needs each call's creation time/,
		);
	});
});

/**
 * Where the next poll of an oldest-first list resumes (callsList.ts `resumeAt`): the page holding
 * the last handled call, or an earlier one holding a new call not handled yet, else the last page
 * read.
 */
describe('where the next poll of an oldest-first list resumes', () => {
	/** A list of pages; page n is fetched by the request `{ query: { page: n } }` (page 1: undefined). */
	function listOf(...pages: IDataObject[][]) {
		const request = (index: number): NextPage =>
			index === 0 ? undefined : { query: { page: index + 1 } };
		return async function* pagesFrom(from: NextPage): AsyncGenerator<CallPage> {
			const start =
				from === undefined ? 0 : Number((from as { query: IDataObject }).query.page) - 1;
			for (let index = start; index < pages.length; index++) {
				yield { calls: pages[index], request: request(index), arrivedDuringWalk: 0 };
			}
		};
	}

	/** Every new call, and where the next poll resumes once the first `handled` of them are handled. */
	async function resumeFrom(
		pagesFrom: ReturnType<typeof listOf>,
		handledUpTo: Position,
		handled?: number,
	) {
		const { emitted, tailAfter } = await findTailCalls(pagesFrom, handledUpTo, {
			requireTimes: false,
		});
		return { emitted: idsOf(emitted), tail: tailAfter(handled ?? emitted.length) };
	}

	test('nothing new: the last page read', async () => {
		const list = listOf([call('a', 1), call('b', 2)], [call('c', 3)]);
		const { emitted, tail } = await resumeFrom(list, position(['c'], at(3)));
		expect(emitted).toEqual([]);
		expect(tail).toEqual({ request: { query: { page: 2 } }, ids: ['c'] });
	});

	test('everything new emitted: the page of the last emitted call', async () => {
		const list = listOf([call('a', 1), call('b', 2)], [call('c', 3), call('d', 4)], []);
		const { emitted, tail } = await resumeFrom(list, position(['a'], at(1)));
		expect(emitted).toEqual(['b', 'c', 'd']);
		expect(tail).toEqual({ request: { query: { page: 2 } }, ids: ['c', 'd'] });
	});

	test('part handled: the page of the last handled call, where the calls not handled yet follow (left out of its ids, so they are found again)', async () => {
		const list = listOf([call('a', 1)], [call('b', 2), call('c', 3)], [call('d', 4)]);
		const { emitted, tail } = await resumeFrom(list, position(['a'], at(1)), 1);
		expect(emitted).toEqual(['b', 'c', 'd']);
		expect(tail).toEqual({ request: { query: { page: 2 } }, ids: ['b'] });
	});

	test('a new call not handled yet on an earlier page than the last handled one: that page', async () => {
		// The list is oldest first page by page, but 'late' (minute 9) is listed before 'b' and 'c'.
		const list = listOf([call('a', 1)], [call('late', 9)], [call('b', 2), call('c', 3)]);
		const { emitted, tail } = await resumeFrom(list, position(['a'], at(1)), 2);
		expect(emitted).toEqual(['b', 'c', 'late']);
		expect(tail).toEqual({ request: { query: { page: 2 } }, ids: ['late'] });
	});

	test('an empty list: the first page', async () => {
		const { emitted, tail } = await resumeFrom(listOf(), position([], at(0)));
		expect(emitted).toEqual([]);
		expect(tail).toEqual({ request: undefined, ids: [] });
	});
});
