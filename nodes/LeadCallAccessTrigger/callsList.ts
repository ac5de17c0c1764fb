import type { IPollFunctions } from 'n8n-workflow';

import type { CallPage } from '../shared/calls/callPages';
import { MAX_PAGE_SIZE, iterateCallPages } from '../shared/calls/callPages';
import type { NextPage } from '../shared/calls/pagination';
import { isStale } from '../shared/errors';
import type { ListOrder, TrackedCall } from './calls';
import { CallListError, assertOrder, chronological, trackCall } from './calls';
import type { Position, Tail } from './position';
import { callVerdict, callVerdicts, windowStart } from './position';
import type { TriggerSettings } from './settings';

/**
 * Reading the calls list, in the order the service lists it. Each reading stops fetching as
 * soon as it has what it needs, so a poll with few new calls costs one or two requests. The
 * pages come as a plain async iterable (from `iterateCallPages`, which also drops calls repeated
 * across pages), which keeps the readings free of n8n and testable on their own. Whether a call
 * is new is decided by one rule, `callVerdict` (position.ts), for both orders.
 */

export type PagesFrom = (from: NextPage) => AsyncIterable<CallPage>;

/** The list's pages from a page request (undefined: the first page), as the Query Parameters filter it. */
export function pagesOf(this: IPollFunctions, settings: TriggerSettings): PagesFrom {
	return (from) =>
		iterateCallPages.call(this, {
			query: settings.query,
			wanted: () => MAX_PAGE_SIZE,
			policy: settings.policy,
			from,
		});
}

/** The first page, and all pages again (the first is not fetched twice). */
export async function withFirstPage(source: AsyncIterable<CallPage>) {
	const iterator = source[Symbol.asyncIterator]();
	const head = await iterator.next();
	async function* pages(): AsyncGenerator<CallPage> {
		if (head.done) return;
		yield head.value;
		for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
			yield next.value;
		}
	}
	return { first: head.done ? [] : trackPage(head.value, undefined), pages: pages() };
}

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

/** The ids of the top of a newest-first list, as a check read them: what the next one compares. */
export const HEAD_SIZE = 2 * MAX_PAGE_SIZE;

/** The new calls of a newest-first list, oldest first, and what the next check compares. */
export interface HeadCalls {
	emitted: TrackedCall[];
	/**
	 * The ids at the top of what was read (`Position.head`) once the first `handled` of `emitted`
	 * are handled: the others are left out, so that the next check finds them again.
	 */
	headAfter: (handled: number) => string[];
}

/**
 * Pages are read until the one where a handled or older call appears, to its end: a call slightly
 * out of order on it is not lost, nor one listed since between calls the last check read
 * (`callVerdicts`). Calls that arrive while the walk runs are either on a page already read
 * (found now) or ahead of the first page (found by the next poll), never both.
 */
export async function findNewCalls(
	pages: AsyncIterable<CallPage>,
	position: Position,
	options: { requireTimes: boolean },
): Promise<HeadCalls> {
	const seen = new Set(position.seen);
	const listed: TrackedCall[] = [];
	for await (const page of pages) {
		// Calls that arrived while this walk ran are ahead of the position: the next poll has them.
		const calls = trackPage(page, 'newest').slice(page.arrivedDuringWalk);
		listed.push(...calls);
		let reached = false;
		for (const call of calls) {
			if (options.requireTimes) assertTimed(call);
			const verdict = callVerdict(call, position, seen);
			if (verdict === 'older' || verdict === 'reached') reached = true;
		}
		if (reached) break;
	}
	const verdicts = callVerdicts(listed, 'newest', position, position.head);
	const fresh = listed.filter((_, index) => verdicts[index] === 'new');
	const emitted = chronological(fresh, 'newest');
	const read = listed.slice(0, HEAD_SIZE).map((call) => call.id);
	const headAfter = (handled: number) => {
		const left = new Set(emitted.slice(handled).map((call) => call.id));
		return read.filter((id) => !left.has(id));
	};
	return { emitted, headAfter };
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

/**
 * An oldest-first list, where new calls are appended at the end: the trigger remembers the last
 * page it read (`Tail`) and reads on from there, however long the list is. When that page cannot
 * be read again, the list is walked from the start, up to a budget of pages.
 */

/** The longest walk from the start of the list: 200 pages of 100 calls. */
const MAX_WALK_PAGES = 200;

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
	const read: Tail[] = [];
	const listed: Listed[] = [];
	for await (const page of pages) {
		const calls = trackPage(page, 'oldest');
		if (resumed && read.length === 0 && !calls.some((call) => position.tail!.ids.includes(call.id)))
			return undefined;
		// No page to resume from: the empty answer that ends a bare list (callPages.ts).
		if (calls.length === 0) continue;
		if (!resumed && read.length >= MAX_WALK_PAGES) throw tooLong();
		read.push({ request: page.request, ids: tailIds(calls) });
		for (const call of calls) {
			if (options.requireTimes) assertTimed(call);
			listed.push({ call, page: read.length - 1 });
		}
	}
	// Read again from the remembered page, a call listed since between its calls is new.
	const calls = listed.map((each) => each.call);
	const verdicts = callVerdicts(
		calls,
		'oldest',
		position,
		resumed ? position.tail!.ids : undefined,
	);
	const fresh = listed.filter((_, index) => verdicts[index] === 'new');
	// No time to compare: only the calls listed after the last handled one are new.
	const reached = verdicts.includes('reached');
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
	const tailAfter = (handled: number) => {
		const done = emitted.slice(0, handled);
		const times = [position.newestAt, ...done.map((call) => call.at)].filter(
			(at) => at !== undefined,
		);
		const newestAt = times.length > 0 ? Math.max(...times) : undefined;
		// The page where the next check's look-back window starts: a call listed late there is found.
		const start = windowStart({ ...position, newestAt });
		const inWindow = listed.find(
			({ call }) => start !== undefined && (call.at ?? -Infinity) >= start,
		);
		return resumeAt(read, fresh, new Set(done.map((call) => call.id)), inWindow?.page);
	};
	return { emitted, tailAfter };
}

/**
 * The page to resume from: the one holding the last handled call, or an earlier one holding a
 * call not handled yet or the start of the look-back window (`windowPage`). Its ids leave out the
 * calls not handled yet, so they are found again even when listed late (unless that leaves none
 * to find the page by).
 */
function resumeAt(
	read: Tail[],
	fresh: Listed[],
	emitted: Set<string>,
	windowPage: number | undefined,
): Tail {
	const lastEmitted = fresh.filter((listed) => emitted.has(listed.call.id)).pop();
	const firstLeft = fresh.find((listed) => !emitted.has(listed.call.id));
	const pages = [lastEmitted?.page, firstLeft?.page, windowPage].filter(
		(page) => page !== undefined,
	);
	const tail = read[pages.length > 0 ? Math.min(...pages) : read.length - 1];
	if (tail === undefined) return { request: undefined, ids: [] };
	const left = new Set(fresh.map((listed) => listed.call.id).filter((id) => !emitted.has(id)));
	const ids = tail.ids.filter((id) => !left.has(id));
	return { ...tail, ids: ids.length > 0 ? ids : tail.ids };
}
