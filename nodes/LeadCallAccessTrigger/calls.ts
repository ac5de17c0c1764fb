import type { IDataObject } from 'n8n-workflow';

import { idOf } from '../shared/calls/callPages';
import { parseTime } from './time';

/**
 * What the trigger reads from a call. The spec shows no call fields, so it relies on an id
 * (required: without one a call cannot be emitted exactly once) and, when the list gives
 * one, a creation time (used to order and to bound the search; see README, "Trigger").
 */
const TIME_KEYS = ['created_at', 'createdAt', 'created'];

export interface TrackedCall {
	id: string;
	/** Creation time in ms since the epoch, when the call carries a readable one. */
	at?: number;
	json: IDataObject;
}

/** A list the trigger cannot work with; the caller turns it into a node error. */
export class CallListError extends Error {
	constructor(
		message: string,
		readonly description?: string,
	) {
		super(message);
	}
}

export function callTime(call: IDataObject): number | undefined {
	const key = TIME_KEYS.find((name) => name in call);
	return key === undefined ? undefined : parseTime(call[key]);
}

export function trackCall(json: IDataObject): TrackedCall {
	const id = idOf(json);
	if (id === undefined) {
		throw new CallListError(
			`A call in the list has no id (fields: ${Object.keys(json).slice(0, 12).join(', ') || 'none'})`,
			'The trigger needs each call\'s "id" to emit it exactly once.',
		);
	}
	return { id, at: callTime(json), json };
}

/**
 * The trigger assumes the list is newest first, as the emulated service and list endpoints
 * of this kind return it by default. A page whose first call is older than its last proves
 * the opposite; stopping then is better than silently emitting nothing or the wrong calls.
 */
export function assertNewestFirst(page: TrackedCall[]): void {
	const timed = page.filter((call) => call.at !== undefined);
	if (timed.length < 2) return;
	const first = timed[0];
	const last = timed[timed.length - 1];
	if (first.at! < last.at!) {
		throw new CallListError(
			`The calls list comes oldest first (call ${first.id} is older than call ${last.id} after it), but the trigger needs the newest call first`,
			'Add a Query Parameter that sorts the list newest first, with the name and value the service documents (for example sort = -created_at or order = desc).',
		);
	}
}

/**
 * Oldest first, the order the trigger emits in. The list is newest first, so reversing it
 * is the order; when every call has a creation time the calls are also sorted by it (the
 * sort is stable: calls created at the same time keep their reversed list order).
 */
export function oldestFirst(calls: TrackedCall[]): TrackedCall[] {
	const reversed = [...calls].reverse();
	if (reversed.some((call) => call.at === undefined)) return reversed;
	return reversed.sort((a, b) => a.at! - b.at!);
}
