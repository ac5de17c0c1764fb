import type { IDataObject } from 'n8n-workflow';

import type { Fault, PathMatcher } from '../emulator';
import type { OperationName, OperationRun } from './operations';

/** What the run must show, besides the invariants every scenario checks. */
export interface Expectation {
	/** How many input items end in the error output. */
	errors: 'none' | 'all' | number;
	/** What each error message must say. */
	message?: RegExp;
}

/** Where a scenario's faults aim: the operation's API path and its success status. */
export interface FaultTarget {
	operation: OperationName;
	path: PathMatcher;
	successStatus: number;
}

export interface Scenario {
	name: string;
	/** Faults to queue before the run. */
	faults: (target: FaultTarget) => Fault[];
	/** The node's Options for the run. */
	options?: IDataObject;
	/** Operations the scenario applies to (default: all). */
	only?: OperationName[];
	expect: Expectation | ((operation: OperationName) => Expectation);
}

const OK: Expectation = { errors: 'none' };
const HTML_PAGE =
	'<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>';
/** Enough to answer every attempt of every item of a run. */
const ALWAYS = 100;
type StatusFault = Extract<Fault, { kind: 'status' }>;

/** `count` answers with this status ('success': the operation's own 2xx) on the API path. */
function status(code: number | 'success', count: number, extra: Partial<StatusFault> = {}) {
	return (target: FaultTarget): Fault[] => [
		{
			kind: 'status',
			status: code === 'success' ? target.successStatus : code,
			count,
			path: target.path,
			origin: 'api',
			...extra,
		},
	];
}

/** A broken 2xx body: the import is accepted (the API said 201), the others fail their item. */
function brokenBody(listMessage: RegExp): Scenario['expect'] {
	return (operation) =>
		operation === 'Import Lead'
			? OK
			: {
					errors: 1,
					message:
						operation === 'List Calls' ? listMessage : /could not be read|still being processed/,
				};
}

const bursts: Scenario[] = [1, 2, 3, 4, 5, 6].map((count) => ({
	name: `503 burst of ${count}`,
	faults: status(503, count),
	expect: OK,
}));

export const SCENARIOS: Scenario[] = [
	{ name: 'no fault (baseline)', faults: () => [], expect: OK },
	...bursts,
	{ name: '502 x3', faults: status(502, 3), expect: OK },
	{ name: '504 x3', faults: status(504, 3), expect: OK },
	{ name: 'HTML 502 error page x3', faults: status(502, 3, { body: HTML_PAGE }), expect: OK },
	{
		name: 'HTML 503 page on every attempt (Max Retries 1)',
		faults: status(503, ALWAYS, { body: HTML_PAGE }),
		options: { maxRetries: 1 },
		expect: {
			errors: 'all',
			message: /temporarily unavailable \(503\) and still failed after 2 attempts/,
		},
	},
	{ name: '429 storm x8, Retry-After: 1', faults: status(429, 8, { retryAfter: '1' }), expect: OK },
	{
		name: '429 storm x8, Retry-After: HTTP-date',
		faults: (target) =>
			status(429, 8, { retryAfter: new Date(Date.now() + 1500).toUTCString() })(target),
		expect: OK,
	},
	{ name: '429 storm x8, no Retry-After', faults: status(429, 8), expect: OK },
	{
		name: '429 storm x8, Retry-After: garbage',
		faults: status(429, 8, { retryAfter: 'soon-ish' }),
		expect: OK,
	},
	{
		name: '429, Retry-After: 3600 (beyond Max Rate-Limit Wait)',
		faults: status(429, ALWAYS, { retryAfter: '3600' }),
		expect: { errors: 'all', message: /Rate limit still exceeded \(429\).*another 1 hour/ },
	},
	{
		name: '429 on every attempt (Max Rate-Limit Wait 1 s)',
		faults: status(429, ALWAYS, { retryAfter: '1' }),
		options: { maxRateLimitWait: 1 },
		expect: { errors: 'all', message: /Rate limit still exceeded \(429\) after waiting 1 second/ },
	},
	{
		name: 'connection reset before the body x3',
		faults: ({ path }) => [{ kind: 'reset', when: 'before-body', count: 3, path, origin: 'api' }],
		expect: OK,
	},
	{
		name: 'connection reset after the body x3',
		faults: ({ path }) => [{ kind: 'reset', when: 'after-body', count: 3, path, origin: 'api' }],
		expect: OK,
	},
	{
		name: 'server hangs x2 (Timeout 1 s)',
		faults: ({ path }) => [{ kind: 'hang', count: 2, path, origin: 'api' }],
		options: { timeout: 1 },
		expect: OK,
	},
	{
		name: 'server hangs on every attempt (Timeout 1 s, Max Retries 1)',
		faults: ({ path }) => [{ kind: 'hang', count: ALWAYS, path, origin: 'api' }],
		options: { timeout: 1, maxRetries: 1 },
		expect: { errors: 'all', message: /did not answer within 1 second \(2 attempts\)/ },
	},
	{
		name: 'malformed JSON in the 2xx body x1',
		faults: status('success', 1, { body: '{"id": "x1", "url": ' }),
		expect: brokenBody(/was empty or not JSON \(\{"id": "x1"/),
	},
	{
		name: 'empty 2xx body x1',
		faults: status('success', 1, { body: '' }),
		expect: brokenBody(/was empty or not JSON/),
	},
	{
		name: 'list page without a list',
		only: ['List Calls'],
		faults: status(200, 1, { body: '{"total": 150, "next_cursor": null}' }),
		expect: { errors: 1, message: /no list of calls in the answer/ },
	},
	{
		name: 'list page that is a JSON string',
		only: ['List Calls'],
		faults: status(200, 1, { body: '"calls"' }),
		expect: { errors: 1, message: /the answer is not a list/ },
	},
	{
		name: 'list page of non-objects',
		only: ['List Calls'],
		faults: status(200, 1, { body: '{"data": ["call_000001", 2, null], "next_cursor": null}' }),
		expect: { errors: 1, message: /are not calls/ },
	},
	{
		name: 'list page as HTML with 200',
		only: ['List Calls'],
		faults: status(200, 1, { body: HTML_PAGE }),
		expect: { errors: 1, message: /empty or not JSON \(the server answered with an HTML page/ },
	},
	{
		name: 'list page with a cursor the API rejects',
		only: ['List Calls'],
		faults: status(200, 1, { body: '{"data": [{"id": "call_x"}], "next_cursor": "bogus"}' }),
		expect: { errors: 1, message: /\(400\): Invalid cursor/ },
	},
	{
		name: 'signed URL expired (file host 403)',
		only: ['Get Recording'],
		faults: () => [{ kind: 'expire-signed-urls' }],
		expect: { errors: 'all', message: /refused the recording's download link, even a fresh one \(403\)/ },
	},
	{
		name: 'truncated recording body x2',
		only: ['Get Recording'],
		faults: () => [{ kind: 'truncate', count: 2 }],
		expect: OK,
	},
	{
		name: 'truncated recording body on every attempt (Max Retries 1)',
		only: ['Get Recording'],
		faults: () => [{ kind: 'truncate', count: ALWAYS }],
		options: { maxRetries: 1 },
		expect: { errors: 'all', message: /download was cut off .*\(2 attempts\)/ },
	},
	{
		name: 'file host 503 x3',
		only: ['Get Recording'],
		faults: () => [{ kind: 'status', status: 503, count: 3, origin: 'files' }],
		expect: OK,
	},
	{
		name: 'file host reset x2',
		only: ['Get Recording'],
		faults: () => [{ kind: 'reset', when: 'before-body', count: 2, origin: 'files' }],
		expect: OK,
	},
	{
		name: 'file host hangs x1 (Timeout 1 s)',
		only: ['Get Recording'],
		faults: () => [{ kind: 'hang', count: 1, origin: 'files' }],
		options: { timeout: 1 },
		expect: OK,
	},
];

export function expectationFor(scenario: Scenario, operation: OperationName): Expectation {
	return typeof scenario.expect === 'function' ? scenario.expect(operation) : scenario.expect;
}

/** The scenario's own expectation: how many items fail, and what their messages say. */
export function expectationProblems(run: OperationRun, expectation: Expectation): string[] {
	const errors =
		expectation.errors === 'none'
			? 0
			: expectation.errors === 'all'
				? run.itemsIn
				: expectation.errors;
	const problems: string[] = [];
	if (run.error !== errors || run.success !== run.itemsIn - errors) {
		problems.push(
			`expected ${errors} error item(s), got ${run.success} success / ${run.error} error`,
		);
	}
	for (const message of run.errorMessages) {
		if (expectation.message && !expectation.message.test(message)) {
			problems.push(`error message does not match ${String(expectation.message)}: ${message}`);
		}
	}
	return problems;
}
