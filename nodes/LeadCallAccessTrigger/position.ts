import type { NextPage } from '../shared/calls/pagination';
import type { ListOrder, TrackedCall } from './calls';

/**
 * Ids kept beyond the look-back window. With times, only the window's ids are needed; the rest
 * is a margin for when remembered calls are deleted or, without times, for finding the position
 * at all. Kept in static data by storedPosition.ts.
 */
export const MAX_REMEMBERED = 500;

/** A call already past the position, waiting for its recording (see deliver.ts). */
export interface HeldCall {
	call: TrackedCall;
	/** When the trigger first asked for its recording (ms): Wait for Recording counts from here. */
	since: number;
	/** Kept because the last check ran out of poll time before it, not for its recording. */
	outOfTime?: boolean;
}

/**
 * A call whose execution did not succeed: due again at each check until an execution with it
 * succeeds, or Give Up After has passed since its first failure (see deliver.ts).
 */
export interface FailedCall {
	call: TrackedCall;
	/** When its first execution failed (ms): Give Up After counts from here. */
	since: number;
	/** How many executions with it failed. */
	failures: number;
}

/** The last page read of an oldest-first list: new calls are appended there and after it. */
export interface Tail {
	/** The request that fetched it (undefined: the first page), to read it again. */
	request: NextPage;
	/** The ids it held, to check that reading it again lands at the same place. */
	ids: string[];
}

/** Where the trigger stands: the calls it has already handled, and what it saw listed. */
export interface Position {
	/**
	 * Ids of the handled calls, newest first: the last MAX_REMEMBERED, and all those inside the
	 * look-back window (`windowStart`), so a call listed late inside it is still known.
	 */
	seen: string[];
	/** The time of each handled call in `seen` that carries one (ms), to keep the window's ids. */
	seenAt?: Record<string, number>;
	/** Time of the newest handled call (ms), when calls carry one. */
	newestAt?: number;
	/** Calls created before this (ms) are never new: where the trigger started, or Calls Since. */
	floor?: number;
	/** The Calls Since this position started from (ms; null: none), to see it changed. */
	since?: number | null;
	/** Look Back (ms): how far before the newest handled call a late-listed call is still new. */
	lookBackMs?: number;
	/** The Query Parameters the calls were listed with (see `usablePosition`). */
	queryKey: string;
	/** The list's order, once known (from the calls' times, or where new calls appeared). */
	order?: ListOrder;
	/** Where an oldest-first list ended (see `Tail`). */
	tail?: Tail;
	/**
	 * The top of what the last check of a newest-first list read: the first ids it saw, in list
	 * order, calls found new but not handled yet left out (see `callVerdicts`).
	 */
	head?: string[];
	/** Calls handled by the list but waiting for their recording, oldest first. */
	held?: HeldCall[];
	/** Calls whose execution failed, due again (see `FailedCall`). */
	failed?: FailedCall[];
}

/**
 * The stored position if it still applies to the current Query Parameters. With times it
 * does: "created after the newest handled call" holds whatever the filter; only the order, the
 * tail and the head (what was listed, under the old filter) are found again. Without times the
 * position is only the remembered ids, which a changed filter may hide: the list would then seem
 * all new, so the trigger starts over.
 */
export function usablePosition(
	stored: Position | undefined,
	queryKey: string,
): Position | undefined {
	if (stored === undefined || stored.queryKey === queryKey) return stored;
	if (stored.newestAt === undefined) return undefined;
	const { seen, seenAt, newestAt, floor, since, held, failed } = stored;
	return { seen, seenAt, newestAt, floor, since, queryKey, held, failed };
}

/**
 * The start of the look-back window: a call created before it is not new, and its id need not
 * be remembered. Look Back before the newest handled call, never before the floor.
 */
export function windowStart(position: Position): number | undefined {
	const { newestAt, floor } = position;
	if (newestAt === undefined) return floor;
	const start = newestAt - (position.lookBackMs ?? 0);
	return floor === undefined ? start : Math.max(start, floor);
}

/** A safety bound on the ids kept for the window: 200 pages of 100 calls. */
const MAX_WINDOW_IDS = 20_000;

/** The position after `calls` (oldest first) were handled. */
export function recordCalls(position: Position, calls: TrackedCall[]): Position {
	const newestFirst = [...calls].reverse().map((call) => call.id);
	const all = [...new Set([...newestFirst, ...position.seen])];
	const allAt = { ...position.seenAt };
	let newestAt = position.newestAt;
	for (const { id, at } of calls) {
		if (at === undefined) continue;
		allAt[id] = at;
		if (newestAt === undefined || at > newestAt) newestAt = at;
	}
	const start = windowStart({ ...position, newestAt }) ?? Infinity;
	const seen = all
		.filter((id, index) => index < MAX_REMEMBERED || (allAt[id] ?? -Infinity) >= start)
		.slice(0, MAX_WINDOW_IDS);
	// Times only where the window needs them: an id past it is kept by count alone.
	const inWindow = seen.filter((id) => (allAt[id] ?? -Infinity) >= start);
	const seenAt = Object.fromEntries(inWindow.map((id) => [id, allAt[id]]));
	return { ...position, seen, seenAt, newestAt };
}

/**
 * Where a call is listed, against the calls on the pages the check read:
 * - `pastHandled`: a handled call is listed on its newer side, so by list order it is older;
 * - `listedSince`: it was not listed when the last check read there, yet it is listed between two
 *   calls that were: it came into the list since, whatever its time (a call stamped when it
 *   started but listed when it ended, after shorter, later calls were handled).
 */
export interface Placement {
	pastHandled: boolean;
	listedSince: boolean;
}

/**
 * The one rule that decides whether a listed call is new, for both list orders. Where it stands:
 * - `new`: not handled yet: listed since the last check, or created at or after the newest
 *   handled call, or (no time to compare) listed on the newer side of every handled call;
 * - `known`: handled, created at the newest handled time: keep reading, since an unhandled
 *   call created at the same time may follow it;
 * - `older`: created before the newest handled call (or listed past a handled one, without
 *   times), and not listed since: handled, before the start, or listed below what the last
 *   check read;
 * - `reached`: handled, and no time to compare: list order is all there is.
 */
export type Verdict = 'new' | 'known' | 'older' | 'reached';

export function callVerdict(
	call: TrackedCall,
	position: Position,
	seen: Set<string>,
	placement: Placement = { pastHandled: false, listedSince: false },
): Verdict {
	const start = windowStart(position);
	const timed = call.at !== undefined && start !== undefined;
	if (seen.has(call.id)) {
		if (timed && call.at! < start) return 'older';
		return timed ? 'known' : 'reached';
	}
	if (placement.listedSince && !(timed && call.at! < (position.floor ?? -Infinity))) return 'new';
	const older = timed ? call.at! < start : placement.pastHandled;
	return older ? 'older' : 'new';
}

/**
 * The verdict of each call read, `listed` in the list's order from where the check began reading;
 * `before`: the ids the last check saw there, in list order (a newest-first list's `head`, an
 * oldest-first list's `tail` page), undefined when the check reads elsewhere (its first, from the
 * start). A call not listed then comes between two that were only if it came into the list
 * since: reading again from the top (newest first) or from the same page (oldest first), every
 * call between them was read then, and is handled, or was older, or is left out of `before`
 * because it was found new but not handled yet (so it is found again). This counts on a call
 * keeping its place in the list, as lists sorted by creation or start do.
 */
export function callVerdicts(
	listed: TrackedCall[],
	order: ListOrder,
	position: Position,
	before: string[] | undefined,
): Verdict[] {
	const seen = new Set(position.seen);
	const then = new Set(before ?? []);
	const wasListed = listed.map((call) => then.has(call.id));
	const first = wasListed.indexOf(true);
	const last = wasListed.lastIndexOf(true);
	const handled = listed.map((call) => seen.has(call.id));
	const firstHandled = handled.indexOf(true);
	const lastHandled = handled.lastIndexOf(true);
	return listed.map((call, index) =>
		callVerdict(call, position, seen, {
			pastHandled:
				firstHandled !== -1 && (order === 'newest' ? firstHandled < index : lastHandled > index),
			listedSince: !wasListed[index] && first < index && index < last,
		}),
	);
}
