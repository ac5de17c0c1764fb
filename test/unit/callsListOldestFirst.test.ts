import type { IDataObject } from 'n8n-workflow';

import type { CallPage } from '../../nodes/shared/calls/callPages';
import type { NextPage } from '../../nodes/shared/calls/pagination';
import type { Position } from '../../nodes/LeadCallAccessTrigger/position';
import { findTailCalls } from '../../nodes/LeadCallAccessTrigger/callsList';

/**
 * Where the next poll of an oldest-first list resumes (callsList.ts `resumeAt`): the page holding the
 * last handled call, or an earlier one holding a new call not handled yet, else the last page read.
 */

const call = (id: string, minute: number): IDataObject => ({
	id,
	created_at: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
});
const at = (minute: number) => Date.UTC(2026, 0, 1, 0, minute);

/** A list of pages; page n is fetched by the request `{ query: { page: n } }` (page 1: undefined). */
function listOf(...pages: IDataObject[][]) {
	const request = (index: number): NextPage =>
		index === 0 ? undefined : { query: { page: index + 1 } };
	return async function* pagesFrom(from: NextPage): AsyncGenerator<CallPage> {
		const start = from === undefined ? 0 : Number((from as { query: IDataObject }).query.page) - 1;
		for (let index = start; index < pages.length; index++) {
			yield { calls: pages[index], request: request(index), arrivedDuringWalk: 0 };
		}
	};
}

const handledUpTo = (seen: string[], newestAt: number): Position => ({
	seen,
	newestAt,
	queryKey: '',
});

/** Every new call, and where the next poll resumes once the first `handled` of them are handled. */
async function resumeFrom(
	pagesFrom: ReturnType<typeof listOf>,
	position: Position,
	handled?: number,
) {
	const { emitted, tailAfter } = await findTailCalls(pagesFrom, position, {
		requireTimes: false,
	});
	return {
		emitted: emitted.map((tracked) => tracked.id),
		tail: tailAfter(handled ?? emitted.length),
	};
}

describe('where the next poll of an oldest-first list resumes', () => {
	test('nothing new: the last page read', async () => {
		const list = listOf([call('a', 1), call('b', 2)], [call('c', 3)]);
		const { emitted, tail } = await resumeFrom(list, handledUpTo(['c'], at(3)));
		expect(emitted).toEqual([]);
		expect(tail).toEqual({ request: { query: { page: 2 } }, ids: ['c'] });
	});

	test('everything new emitted: the page of the last emitted call', async () => {
		const list = listOf([call('a', 1), call('b', 2)], [call('c', 3), call('d', 4)], []);
		const { emitted, tail } = await resumeFrom(list, handledUpTo(['a'], at(1)));
		expect(emitted).toEqual(['b', 'c', 'd']);
		expect(tail).toEqual({ request: { query: { page: 2 } }, ids: ['c', 'd'] });
	});

	test('part handled: the page of the last handled call, where the calls not handled yet follow', async () => {
		const list = listOf([call('a', 1)], [call('b', 2), call('c', 3)], [call('d', 4)]);
		const { emitted, tail } = await resumeFrom(list, handledUpTo(['a'], at(1)), 1);
		expect(emitted).toEqual(['b', 'c', 'd']);
		expect(tail).toEqual({ request: { query: { page: 2 } }, ids: ['b', 'c'] });
	});

	test('a new call not handled yet on an earlier page than the last handled one: that page', async () => {
		// The list is oldest first page by page, but 'late' (minute 9) is listed before 'b' and 'c'.
		const list = listOf([call('a', 1)], [call('late', 9)], [call('b', 2), call('c', 3)]);
		const { emitted, tail } = await resumeFrom(list, handledUpTo(['a'], at(1)), 2);
		expect(emitted).toEqual(['b', 'c', 'late']);
		expect(tail).toEqual({ request: { query: { page: 2 } }, ids: ['late'] });
	});

	test('an empty list: the first page', async () => {
		const { emitted, tail } = await resumeFrom(listOf(), handledUpTo([], at(0)));
		expect(emitted).toEqual([]);
		expect(tail).toEqual({ request: undefined, ids: [] });
	});
});
