import type { IDataObject } from 'n8n-workflow';

import { isJsonObject } from '../shared/context';
import type { ListOrder } from './calls';
import { parseTime, trackCall } from './calls';
import type { HeldCall, Position, Tail } from './position';

/**
 * How the trigger's position is kept in the workflow's static data, which n8n saves when the
 * trigger starts an execution: plain JSON, readable in n8n's workflow export.
 */

interface StoredPosition {
	version: 1;
	queryKey: string;
	seenIds: string[];
	/** Creation times (ms) of the ids in seenIds that carry one. */
	seenTimes?: Record<string, number>;
	newestCreatedAt?: string;
	startedFrom?: string;
	/** Absent in positions written before 0.4: then the current Calls Since is taken as known. */
	callsSince?: string | null;
	listOrder?: ListOrder;
	tail?: Tail;
	headIds?: string[];
	heldCalls?: Array<{ call: IDataObject; heldSince: string; outOfTime?: true }>;
	failedCalls?: Array<{ call: IDataObject; failedSince: string; failures: number }>;
}

const STATIC_KEY = 'position';

function readTail(value: unknown): Tail | undefined {
	if (!isJsonObject(value) || !Array.isArray(value.ids)) return undefined;
	const tail = value as Partial<Tail>;
	return { request: tail.request, ids: value.ids.filter((id) => typeof id === 'string') };
}

/** Stored calls (held or failed) with the time kept under `sinceKey`. */
function readCalls(value: unknown, sinceKey: string): Array<HeldCall & { entry: IDataObject }> {
	if (!Array.isArray(value)) return [];
	const calls: Array<HeldCall & { entry: IDataObject }> = [];
	for (const entry of value) {
		if (!isJsonObject(entry) || !isJsonObject(entry.call)) continue;
		const since = parseTime(entry[sinceKey]);
		try {
			calls.push({ call: trackCall(entry.call), since: since ?? Date.now(), entry });
		} catch {
			// A stored call without an id cannot be one the trigger kept: ignore it.
		}
	}
	return calls;
}

function asTimes(value: unknown): Record<string, number> {
	const times: Record<string, number> = {};
	if (!isJsonObject(value)) return times;
	for (const [id, at] of Object.entries(value)) if (typeof at === 'number') times[id] = at;
	return times;
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
	const held = readCalls(stored.heldCalls, 'heldSince').map(({ call, since, entry }) =>
		entry.outOfTime === true ? { call, since, outOfTime: true } : { call, since },
	);
	const failed = readCalls(stored.failedCalls, 'failedSince').map(({ call, since, entry }) => ({
		call,
		since,
		failures: Number(entry.failures) || 1,
	}));
	const newestAt = parseTime(stored.newestCreatedAt);
	return {
		seen,
		seenAt: asTimes(stored.seenTimes),
		newestAt,
		// A position from before 0.4 had no floor: its newest call was where it stood.
		floor: parseTime(stored.startedFrom) ?? newestAt,
		since: 'callsSince' in stored ? (parseTime(stored.callsSince) ?? null) : undefined,
		queryKey,
		order,
		tail,
		head,
		held,
		failed,
	};
}

/** Writes the position only when it changed, so an idle poll leaves static data untouched. */
export function writePosition(staticData: IDataObject, position: Position): void {
	const stored: StoredPosition = {
		version: 1,
		queryKey: position.queryKey,
		seenIds: position.seen,
	};
	const iso = (ms: number) => new Date(ms).toISOString();
	if (position.seenAt !== undefined && Object.keys(position.seenAt).length > 0) {
		stored.seenTimes = position.seenAt;
	}
	if (position.newestAt !== undefined) stored.newestCreatedAt = iso(position.newestAt);
	if (position.floor !== undefined) stored.startedFrom = iso(position.floor);
	if (position.since !== undefined) {
		stored.callsSince = position.since === null ? null : iso(position.since);
	}
	if (position.order !== undefined) stored.listOrder = position.order;
	if (position.tail !== undefined) stored.tail = position.tail;
	if (position.head !== undefined) stored.headIds = position.head;
	if (position.held !== undefined && position.held.length > 0) {
		stored.heldCalls = position.held.map(({ call, since, outOfTime }) => ({
			call: call.json,
			heldSince: iso(since),
			...(outOfTime ? { outOfTime } : {}),
		}));
	}
	if (position.failed !== undefined && position.failed.length > 0) {
		stored.failedCalls = position.failed.map(({ call, since, failures }) => ({
			call: call.json,
			failedSince: iso(since),
			failures,
		}));
	}
	if (JSON.stringify(staticData[STATIC_KEY]) === JSON.stringify(stored)) return;
	staticData[STATIC_KEY] = stored as unknown as IDataObject;
}
