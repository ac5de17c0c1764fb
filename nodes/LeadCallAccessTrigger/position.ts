import type { IDataObject } from 'n8n-workflow';

import { isJsonObject } from '../shared/context';
import type { NextPage } from '../shared/calls/pagination';
import type { ListOrder, TrackedCall } from './calls';
import { parseTime, trackCall } from './calls';

/**
 * Ids kept in the workflow's static data. Only calls created at the newest remembered time
 * are needed for correctness (ties); the rest is a margin for when remembered calls are
 * deleted or, without times, for finding the position at all.
 */
export const MAX_REMEMBERED = 500;

/** A call already past the position, waiting for its recording (see deliver.ts). */
export interface HeldCall {
	call: TrackedCall;
	/** When the trigger first asked for its recording (ms): Wait for Recording counts from here. */
	since: number;
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
	/** Ids of the most recently handled calls, newest first, at most MAX_REMEMBERED. */
	seen: string[];
	/** Time of the newest handled call (ms), when calls carry one. */
	newestAt?: number;
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
}

/** The form kept in static data: plain JSON, readable in n8n's workflow export. */
interface StoredPosition {
	version: 1;
	queryKey: string;
	seenIds: string[];
	newestCreatedAt?: string;
	listOrder?: ListOrder;
	tail?: Tail;
	headIds?: string[];
	heldCalls?: Array<{ call: IDataObject; heldSince: string }>;
}

const STATIC_KEY = 'position';

function readTail(value: unknown): Tail | undefined {
	if (!isJsonObject(value) || !Array.isArray(value.ids)) return undefined;
	const tail = value as Partial<Tail>;
	return { request: tail.request, ids: value.ids.filter((id) => typeof id === 'string') };
}

function readHeld(value: unknown): HeldCall[] {
	if (!Array.isArray(value)) return [];
	const held: HeldCall[] = [];
	for (const entry of value) {
		if (!isJsonObject(entry) || !isJsonObject(entry.call)) continue;
		const since = parseTime(entry.heldSince);
		try {
			held.push({ call: trackCall(entry.call), since: since ?? Date.now() });
		} catch {
			// A stored call without an id cannot be one the trigger held: ignore it.
		}
	}
	return held;
}

/** The stored position, or undefined when there is none yet (first activation). */
export function readPosition(staticData: IDataObject): Position | undefined {
	if (!isJsonObject(staticData[STATIC_KEY])) return undefined;
	const stored = staticData[STATIC_KEY] as Partial<StoredPosition>;
	if (stored.version !== 1) return undefined;
	if (!Array.isArray(stored.seenIds)) return undefined;
	const seen = stored.seenIds.filter((id): id is string => typeof id === 'string');
	const queryKey = typeof stored.queryKey === 'string' ? stored.queryKey : '';
	const order =
		stored.listOrder === 'newest' || stored.listOrder === 'oldest' ? stored.listOrder : undefined;
	const tail = readTail(stored.tail);
	const head = Array.isArray(stored.headIds)
		? stored.headIds.filter((id): id is string => typeof id === 'string')
		: undefined;
	const held = readHeld(stored.heldCalls);
	return { seen, newestAt: parseTime(stored.newestCreatedAt), queryKey, order, tail, head, held };
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
	return { seen: stored.seen, newestAt: stored.newestAt, queryKey, held: stored.held };
}

/** Writes the position only when it changed, so an idle poll leaves static data untouched. */
export function writePosition(staticData: IDataObject, position: Position): void {
	const stored: StoredPosition = {
		version: 1,
		queryKey: position.queryKey,
		seenIds: position.seen,
	};
	if (position.newestAt !== undefined) {
		stored.newestCreatedAt = new Date(position.newestAt).toISOString();
	}
	if (position.order !== undefined) stored.listOrder = position.order;
	if (position.tail !== undefined) stored.tail = position.tail;
	if (position.head !== undefined) stored.headIds = position.head;
	if (position.held !== undefined && position.held.length > 0) {
		stored.heldCalls = position.held.map(({ call, since }) => ({
			call: call.json,
			heldSince: new Date(since).toISOString(),
		}));
	}
	if (JSON.stringify(staticData[STATIC_KEY]) === JSON.stringify(stored)) return;
	staticData[STATIC_KEY] = stored as unknown as IDataObject;
}

/** The position after `calls` (oldest first) were handled. */
export function recordCalls(position: Position, calls: TrackedCall[]): Position {
	const newestFirst = [...calls].reverse().map((call) => call.id);
	const seen = [...new Set([...newestFirst, ...position.seen])];
	let newestAt = position.newestAt;
	for (const { at } of calls) {
		if (at !== undefined && (newestAt === undefined || at > newestAt)) newestAt = at;
	}
	return { ...position, seen: seen.slice(0, MAX_REMEMBERED), newestAt };
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
	const timed = call.at !== undefined && position.newestAt !== undefined;
	if (seen.has(call.id)) {
		if (timed && call.at! < position.newestAt!) return 'older';
		return timed ? 'known' : 'reached';
	}
	if (placement.listedSince) return 'new';
	const older = timed ? call.at! < position.newestAt! : placement.pastHandled;
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
