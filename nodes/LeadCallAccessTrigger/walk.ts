import type { IDataObject } from 'n8n-workflow';

import type { TrackedCall } from './calls';
import { CallListError, assertNewestFirst, trackCall } from './calls';
import type { Position } from './position';
import { classify } from './position';

/**
 * Reading the newest-first calls list page by page. Both walks stop fetching as soon as they
 * have what they need, so a poll with few new calls costs one request. They take the pages as
 * a plain async iterable (from `iterateCallPages`, which also drops calls repeated across
 * pages), which keeps them free of n8n and testable on their own.
 */

function readPage(page: IDataObject[]): TrackedCall[] {
	const calls = page.map(trackCall);
	assertNewestFirst(calls);
	return calls;
}

/**
 * The calls listed before the position, in list order (newest first). The page on which the
 * position is reached is read to its end: a call slightly out of order on it is not lost.
 * Calls that arrive while the walk runs are either on a page already read (found now) or
 * ahead of the first page (found by the next poll), never both.
 */
export async function findNewCalls(
	pages: AsyncIterable<IDataObject[]>,
	position: Position,
	options: { requireTimes: boolean },
): Promise<TrackedCall[]> {
	const seen = new Set(position.seen);
	const fresh: TrackedCall[] = [];
	for await (const page of pages) {
		let reached = false;
		for (const call of readPage(page)) {
			if (options.requireTimes && call.at === undefined) {
				throw new CallListError(
					`Calls Since needs each call's creation time, but call ${call.id} has none (no created_at)`,
					'Remove the Calls Since option: the trigger then starts with the calls that arrive after activation.',
				);
			}
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
 * The calls that mark where a new trigger starts: the newest page, and the next ones while
 * they continue with calls created at the newest time, so that every call of that instant
 * is remembered and none of them is later taken for a new call.
 */
export async function findStartCalls(pages: AsyncIterable<IDataObject[]>): Promise<TrackedCall[]> {
	const calls: TrackedCall[] = [];
	let newestAt: number | undefined;
	for await (const page of pages) {
		for (const call of readPage(page)) {
			calls.push(call);
			if (call.at !== undefined && (newestAt === undefined || call.at > newestAt))
				newestAt = call.at;
		}
		const last = calls[calls.length - 1];
		if (newestAt === undefined || last.at === undefined || last.at < newestAt) break;
	}
	return calls;
}
