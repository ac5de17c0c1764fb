import type { IDataObject } from 'n8n-workflow';

import type { TrackedCall } from '../../nodes/LeadCallAccessTrigger/calls';
import type { Position } from '../../nodes/LeadCallAccessTrigger/position';
import { findNewCalls, findStartCalls } from '../../nodes/LeadCallAccessTrigger/callsList';

/**
 * Reading a newest-first calls list until the position (callsList.ts), over plain async iterables:
 * list shapes the emulator does not produce. The trigger suite (test/engine/trigger.test.ts)
 * drives the same walk through n8n's poll.
 */

async function* pagesOf(...pages: IDataObject[][]) {
	for (const calls of pages) yield { calls, request: undefined, arrivedDuringWalk: 0 };
}
const call = (id: string, minute?: number): IDataObject =>
	minute === undefined
		? { id }
		: { id, created_at: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString() };
const at = (minute: number) => Date.UTC(2026, 0, 1, 0, minute);
const idsOf = (calls: TrackedCall[]) => calls.map((tracked) => tracked.id);
const position = (seen: string[], newestAt?: number): Position => ({
	seen,
	newestAt,
	queryKey: '',
});

test('an unseen call at the newest instant is new even when it follows a handled one', async () => {
	const pages = pagesOf([call('a', 5), call('b', 5), call('c', 4)], [call('d', 3)]);
	const fresh = await findNewCalls(pages, position(['a'], at(5)), { requireTimes: false });
	expect(idsOf(fresh)).toEqual(['b']);
});

test('without creation times the list order alone marks the position', async () => {
	let pagesRead = 0;
	async function* counted() {
		for (const calls of [[call('x'), call('y')], [call('a'), call('z')], [call('q')]]) {
			pagesRead++;
			yield { calls, request: undefined, arrivedDuringWalk: 0 };
		}
	}
	const fresh = await findNewCalls(counted(), position(['a', 'q']), { requireTimes: false });
	expect(idsOf(fresh)).toEqual(['x', 'y']);
	expect(pagesRead).toBe(2);
});

test('a page slightly out of order loses no call', async () => {
	const pages = pagesOf([call('n1', 9), call('old', 4), call('n2', 8), call('older', 3)]);
	const fresh = await findNewCalls(pages, position(['old'], at(5)), { requireTimes: false });
	expect(idsOf(fresh)).toEqual(['n1', 'n2']);
});

test('calls without an id are refused', async () => {
	await expect(findStartCalls(pagesOf([{ name: 'no id' }]))).rejects.toThrow(/has no id/);
});

test('Calls Since needs creation times', async () => {
	const pages = pagesOf([call('a')]);
	await expect(findNewCalls(pages, position([], at(0)), { requireTimes: true })).rejects.toThrow(
		/Calls Since needs each call's creation time/,
	);
});
