import type { CallPage } from '../shared/calls/callPages';
import { MAX_PAGE_SIZE } from '../shared/calls/callPages';
import type { NextPage } from '../shared/calls/pagination';
import { isStale } from '../shared/errors';
import type { TrackedCall } from './calls';
import { CallListError, chronological } from './calls';
import type { Position, Tail } from './position';
import { assertTimed, trackPage } from './walk';

/**
 * Reading an oldest-first calls list, where new calls are appended at the end. The trigger
 * remembers the last page it read (`Tail`) and reads on from there, so a poll with few new
 * calls costs one or two requests however long the list is. When that page cannot be read
 * again, the list is walked from the start, up to a budget of pages.
 */

/** The longest walk from the start of the list: 200 pages of 100 calls. */
const MAX_WALK_PAGES = 200;

export type PagesFrom = (from: NextPage) => AsyncIterable<CallPage>;

function tooLong(): CallListError {
	return new CallListError(
		`The calls list is longer than ${MAX_WALK_PAGES} pages and comes oldest first, and the trigger cannot resume where it stopped reading`,
		'Add a Query Parameter that sorts the list newest first, with the name and value the service documents (for example sort = -created_at or order = desc), and set Options › List Order to Newest First.',
	);
}

/** Ids that recognise a page again; the last ones suffice, and keep static data small. */
const tailIds = (calls: TrackedCall[]) => calls.slice(-MAX_PAGE_SIZE).map((call) => call.id);

/**
 * Reading from a remembered page request, undefined when the service no longer accepts it (an
 * expired cursor, say): the caller then reads from the start.
 */
export async function unlessStale<T>(reading: Promise<T>): Promise<T | undefined> {
	return await reading.catch((error: unknown) =>
		isStale(error) ? undefined : Promise.reject(error),
	);
}

/** Every call of the list, to the end, and its last page (a start on an oldest-first list). */
export async function readToEnd(
	pages: AsyncIterable<CallPage>,
): Promise<{ calls: TrackedCall[]; tail: Tail }> {
	const calls: TrackedCall[] = [];
	let tail: Tail = { request: undefined, ids: [] };
	let count = 0;
	for await (const page of pages) {
		if (++count > MAX_WALK_PAGES) throw tooLong();
		const tracked = trackPage(page, undefined);
		calls.push(...tracked);
		if (tracked.length > 0) tail = { request: page.request, ids: tailIds(tracked) };
	}
	return { calls, tail };
}

interface Listed {
	call: TrackedCall;
	page: number;
}

/** The new calls of an oldest-first list, oldest first, and where to resume reading. */
export interface TailCalls {
	emitted: TrackedCall[];
	/**
	 * The page to resume from once the first `handled` of `emitted` are handled: the one holding
	 * the last handled call, or an earlier one holding a new call not handled yet.
	 */
	tailAfter: (handled: number) => Tail;
}

export async function findTailCalls(
	pagesFrom: PagesFrom,
	position: Position,
	options: { requireTimes: boolean },
): Promise<TailCalls> {
	if (position.tail !== undefined) {
		// A remembered request the service no longer accepts counts as a page not found again.
		const resumed = await unlessStale(
			walk(pagesFrom(position.tail.request), position, options, true),
		);
		if (resumed !== undefined) return resumed;
	}
	return (await walk(pagesFrom(undefined), position, options, false))!;
}

/** Undefined when a resumed walk does not find the remembered page where it was. */
async function walk(
	pages: AsyncIterable<CallPage>,
	position: Position,
	options: { requireTimes: boolean },
	resumed: boolean,
): Promise<TailCalls | undefined> {
	const seen = new Set(position.seen);
	const read: Tail[] = [];
	let fresh: Listed[] = [];
	let reached = false;
	for await (const page of pages) {
		const calls = trackPage(page, 'oldest');
		if (resumed && read.length === 0 && !calls.some((call) => position.tail!.ids.includes(call.id)))
			return undefined;
		if (!resumed && read.length >= MAX_WALK_PAGES) throw tooLong();
		read.push({ request: page.request, ids: tailIds(calls) });
		for (const call of calls) {
			if (options.requireTimes) assertTimed(call);
			if (call.at !== undefined && position.newestAt !== undefined) {
				if (call.at >= position.newestAt && !seen.has(call.id))
					fresh.push({ call, page: read.length - 1 });
			} else if (seen.has(call.id)) {
				// No time to compare: only the calls listed after the last handled one are new.
				fresh = [];
				reached = true;
			} else fresh.push({ call, page: read.length - 1 });
		}
	}
	if (!reached && position.newestAt === undefined && fresh.length > 0) {
		throw new CallListError(
			'The trigger cannot find the calls it handled last in the calls list, so it cannot tell which calls are new',
			'The calls carry no time the trigger recognises. Deactivate and activate the workflow to start over from the newest call, or add a sort Query Parameter that lists the newest calls first and set List Order to Newest First.',
		);
	}
	const emitted = chronological(
		fresh.map((listed) => listed.call),
		'oldest',
	);
	const tailAfter = (handled: number) =>
		resumeAt(read, fresh, new Set(emitted.slice(0, handled).map((call) => call.id)));
	return { emitted, tailAfter };
}

function resumeAt(read: Tail[], fresh: Listed[], emitted: Set<string>): Tail {
	const lastEmitted = fresh.filter((listed) => emitted.has(listed.call.id)).pop();
	const firstLeft = fresh.find((listed) => !emitted.has(listed.call.id));
	const pages = [lastEmitted?.page, firstLeft?.page].filter((page) => page !== undefined);
	return (
		read[pages.length > 0 ? Math.min(...pages) : read.length - 1] ?? { request: undefined, ids: [] }
	);
}
