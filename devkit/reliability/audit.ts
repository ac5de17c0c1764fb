import type { INodeExecutionData } from 'n8n-workflow';

import type { RecordedRequest } from '../emulator';

/**
 * Says why an error message is not one a user can act on, or returns undefined when it is:
 * a sentence of reasonable length, without internals (object dumps, stack frames, markup).
 */
export function unclearMessage(message: unknown): string | undefined {
	if (typeof message !== 'string' || message.trim().length < 10) {
		return `missing or too short: ${JSON.stringify(message)}`;
	}
	if (message.length > 500) return `${message.length} characters long`;
	// The user's own values are quoted in messages: only the node's words are judged.
	const words = message.replace(/"[^"]*"/g, '""');
	const internals = /\[object \w+\]|\bundefined\b|\bNaN\b|<html|<!doctype|<\?xml|\n\s+at \S+ \(/i;
	if (internals.test(words)) return `shows internals: ${message.slice(0, 120)}`;
	const rawJavaScriptError =
		/^(URI malformed|Invalid URL|Cannot read propert|Unexpected token|.+ is not a function|Maximum call stack)/;
	if (rawJavaScriptError.test(message)) return `a bare JavaScript error: ${message.slice(0, 120)}`;
	return undefined;
}

export interface Accounting {
	/** Input index -> its success items. */
	success: Map<number, INodeExecutionData[]>;
	/** Input index -> its error item. */
	error: Map<number, INodeExecutionData>;
	/** Input indexes with no output at all. */
	missing: number[];
	problems: string[];
}

/**
 * Checks that every input item ends in exactly one of the two outputs, paired to its index,
 * with a clear message when it failed (a List Calls item may have many success items, or none
 * when there are no calls).
 */
export function account(
	itemsIn: number,
	output: { success: INodeExecutionData[]; error: INodeExecutionData[] },
	manyPerItem = false,
): Accounting {
	const result: Accounting = { success: new Map(), error: new Map(), missing: [], problems: [] };
	const pairedIndex = (item: INodeExecutionData, output: string) => {
		const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
		const index = typeof paired === 'object' && paired !== null ? paired.item : undefined;
		if (index !== undefined && index >= 0 && index < itemsIn) return index;
		result.problems.push(`${output} item paired to ${String(index)}`);
		return undefined;
	};
	for (const item of output.success) {
		const index = pairedIndex(item, 'success');
		if (index !== undefined)
			result.success.set(index, [...(result.success.get(index) ?? []), item]);
	}
	for (const item of output.error) {
		const index = pairedIndex(item, 'error');
		if (index !== undefined && result.error.has(index)) {
			result.problems.push(`item ${index} has two error items`);
		} else if (index !== undefined) result.error.set(index, item);
		const unclear = unclearMessage(item.json.error);
		if (unclear) result.problems.push(`item ${String(index)}: unclear error message (${unclear})`);
	}
	for (let index = 0; index < itemsIn; index++) {
		const successes = result.success.get(index)?.length ?? 0;
		if (successes > 0 && result.error.has(index)) {
			result.problems.push(`item ${index} is in both outputs`);
		}
		if (manyPerItem) continue;
		if (successes > 1) result.problems.push(`item ${index} has ${successes} success items`);
		if (successes === 0 && !result.error.has(index)) {
			result.missing.push(index);
			result.problems.push(`item ${index} reached neither output`);
		}
	}
	return result;
}

/** Requests that are the same request sent again: same origin, method, path, query and body. */
function requestKey(request: RecordedRequest): string {
	const query = Object.entries(request.query).sort(([a], [b]) => a.localeCompare(b));
	return JSON.stringify([request.origin, request.method, request.path, query, request.body]);
}

/** A final answer the client must not ask again for: a 2xx that arrived whole. */
export function isFinalAnswer(request: RecordedRequest): boolean {
	const { status } = request;
	return (
		typeof status === 'number' && status >= 200 && status < 300 && request.fault !== 'truncate'
	);
}

/** How many requests repeated an earlier identical request (retries, refreshes). */
export function countRepeats(requests: RecordedRequest[], key = requestKey): number {
	return requests.length - new Set(requests.map(key)).size;
}

/** Requests sent again after a final answer to the same request: duplicates, not retries. */
export function sentAfterFinalAnswer(
	requests: RecordedRequest[],
	key = requestKey,
): RecordedRequest[] {
	const answered = new Set<string>();
	return requests.filter((request) => {
		const duplicate = answered.has(key(request));
		if (isFinalAnswer(request)) answered.add(key(request));
		return duplicate;
	});
}

/** Where a secret shows up among named texts. */
export function placesContaining(secret: string, places: Record<string, string>): string[] {
	return Object.keys(places).filter((name) => places[name].includes(secret));
}

/** A request body that is not a `LeadImport` as the spec defines it, or undefined. */
export function leadImportProblem(body: string): string | undefined {
	let fields: unknown;
	try {
		fields = JSON.parse(body);
	} catch {
		return `not JSON: ${body.slice(0, 80)}`;
	}
	if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
		return 'not an object';
	const { phone_e164: phone, ...rest } = fields as Record<string, unknown>;
	if (typeof phone !== 'string') return 'phone_e164 is not a string';
	for (const [name, value] of Object.entries(rest)) {
		if (!['name', 'campaign_id', 'contact_type', 'legal_basis'].includes(name)) {
			return `unknown field ${name}`;
		}
		if (value !== null && typeof value !== 'string') return `${name} is a ${typeof value}`;
	}
	return undefined;
}
