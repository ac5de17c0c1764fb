import type { IDataObject } from 'n8n-workflow';

import { idOf } from '../shared/calls/callPages';

/**
 * What the trigger reads from a call. The spec shows no call fields, so it relies on an id
 * (required: without one a call cannot be emitted exactly once) and, when the calls carry
 * one, a time: used to order, to bound the search and to tell the list's order.
 */

/**
 * Time fields by preference: creation first, then start, then generic names. Besides `created_at`,
 * creation goes by `date_created` / `dateCreated` (Twilio, whose RFC 2822 dates `Date.parse`
 * reads) and `created_time` / `createdTime` (Meta's Graph API, Zoho and others).
 */
const TIME_KEYS = [
	'created_at',
	'createdAt',
	'created',
	'date_created',
	'dateCreated',
	'created_time',
	'createdTime',
	'started_at',
	'startedAt',
	'start_time',
	'startTime',
	'timestamp',
	'date',
	'time',
];
/** Other `*_at` / `*At` fields are read too, update-like ones last (they change over time). */
const OTHER_TIME_KEY = /(_at|At)$/;
const UPDATE_LIKE = /^(updated|modified|changed|edited)/i;

export type ListOrder = 'newest' | 'oldest';

export interface TrackedCall {
	id: string;
	/** The call's time in ms since the epoch, when it carries a readable one. */
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

function callTime(call: IDataObject): number | undefined {
	const others = Object.keys(call).filter((key) => OTHER_TIME_KEY.test(key));
	const keys = [
		...TIME_KEYS,
		...others.filter((key) => !UPDATE_LIKE.test(key)),
		...others.filter((key) => UPDATE_LIKE.test(key)),
	];
	for (const key of keys) {
		const at = key in call ? parseTime(call[key]) : undefined;
		if (at !== undefined) return at;
	}
	return undefined;
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

/** The order the calls' times show (first against last), or undefined when they show none. */
export function timeOrder(calls: TrackedCall[]): ListOrder | undefined {
	const timed = calls.filter((call) => call.at !== undefined);
	if (timed.length < 2) return undefined;
	const first = timed[0].at!;
	const last = timed[timed.length - 1].at!;
	return first === last ? undefined : first > last ? 'newest' : 'oldest';
}

const ORDER_NAMES: Record<ListOrder, string> = { newest: 'newest first', oldest: 'oldest first' };

/** Fails when a page's times contradict the order the trigger works with. */
export function assertOrder(calls: TrackedCall[], order: ListOrder): void {
	const shown = timeOrder(calls);
	if (shown === undefined || shown === order) return;
	throw new CallListError(
		`The calls list comes ${ORDER_NAMES[shown]} (by the calls' times), but the trigger reads it as ${ORDER_NAMES[order]}`,
		'Set Options › List Order to Detect (or to the order the service lists calls in), or keep the order with a sort Query Parameter.',
	);
}

/**
 * Oldest first, the order the trigger emits in: the list order, reversed for a newest-first
 * list; when every call has a time, also sorted by it (the sort is stable: calls of the same
 * instant keep their list order).
 */
export function chronological(calls: TrackedCall[], order: ListOrder): TrackedCall[] {
	const listed = order === 'newest' ? [...calls].reverse() : [...calls];
	if (listed.some((call) => call.at === undefined)) return listed;
	return listed.sort((a, b) => a.at! - b.at!);
}

// Times: milliseconds since the epoch, the one form the trigger compares and stores.

/** Beyond this `new Date(ms).toISOString()` throws: such a value is not a real time. */
const MAX_TIME_MS = 8.64e15;

/** Unix times below this are seconds (1e11 s is the year 5138; 1e11 ms is 1973). */
const SECONDS_LIMIT = 1e11;

export function inRange(ms: number): number | undefined {
	return Number.isFinite(ms) && Math.abs(ms) <= MAX_TIME_MS ? ms : undefined;
}

/** An ISO 8601 string, or a Unix time in seconds or milliseconds (number or digits). */
export function parseTime(value: unknown): number | undefined {
	if (typeof value === 'number') {
		return inRange(Math.abs(value) < SECONDS_LIMIT ? value * 1000 : value);
	}
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const text = value.trim();
	if (/^\d+(\.\d+)?$/.test(text)) return parseTime(Number(text));
	return inRange(Date.parse(text));
}
