import type { CallPage } from '../shared/calls/callPages';
import type { ListOrder, TrackedCall } from './calls';
import { CallListError, assertOrder, trackCall } from './calls';
import type { Position } from './position';
import { classify } from './position';

/**
 * Reading a newest-first calls list page by page (an oldest-first list is read in tail.ts,
 * which shares the page checks below). Both walks stop fetching as soon as they have what
 * they need, so a poll with few new calls costs one request. They take the pages as a plain
 * async iterable (from `iterateCallPages`, which also drops calls repeated across pages),
 * which keeps them free of n8n and testable on their own.
 */

/** The calls of a page, checked against the order the trigger reads the list in. */
export function trackPage(page: CallPage, order: ListOrder | undefined): TrackedCall[] {
	const calls = page.calls.map(trackCall);
	if (order !== undefined) assertOrder(calls, order);
	return calls;
}

export function assertTimed(call: TrackedCall): void {
	if (call.at !== undefined) return;
	throw new CallListError(
		`Calls Since needs each call's creation time, but call ${call.id} has none (no created_at or other time field)`,
		'Remove the Calls Since option: the trigger then starts with the calls that arrive after activation.',
	);
}

/**
 * The calls listed before the position, in list order (newest first). The page on which the
 * position is reached is read to its end: a call slightly out of order on it is not lost.
 * Calls that arrive while the walk runs are either on a page already read (found now) or
 * ahead of the first page (found by the next poll), never both.
 */
export async function findNewCalls(
	pages: AsyncIterable<CallPage>,
	position: Position,
	options: { requireTimes: boolean },
): Promise<TrackedCall[]> {
	const seen = new Set(position.seen);
	const fresh: TrackedCall[] = [];
	for await (const page of pages) {
		let reached = false;
		// Calls that arrived while this walk ran are ahead of the position: the next poll has them.
		for (const call of trackPage(page, 'newest').slice(page.arrivedDuringWalk)) {
			if (options.requireTimes) assertTimed(call);
			const verdict = classify(call, position, seen);
			if (verdict === 'new') fresh.push(call);
			else if (verdict === 'older') reached = true;
			else if (verdict === 'reached') {
				reached = true;
				break; // no times: the calls after a handled one are older, by list order alone
			}
		}
		if (reached) break;
	}
	return fresh;
}

/**
 * The calls that mark where a new trigger starts on a newest-first list: the newest page, and
 * the next ones while they continue with calls of the newest time, so that every call of that
 * instant is remembered and none of them is later taken for a new call.
 */
export async function findStartCalls(pages: AsyncIterable<CallPage>): Promise<TrackedCall[]> {
	const calls: TrackedCall[] = [];
	let newestAt: number | undefined;
	for await (const page of pages) {
		for (const call of trackPage(page, 'newest')) {
			calls.push(call);
			if (call.at !== undefined && (newestAt === undefined || call.at > newestAt))
				newestAt = call.at;
		}
		const last = calls[calls.length - 1];
		if (newestAt === undefined || last === undefined || last.at === undefined) break;
		if (last.at < newestAt) break;
	}
	return calls;
}
