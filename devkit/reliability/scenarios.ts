import type { IDataObject } from 'n8n-workflow';

import type { Fault } from '../emulator';
import type { Operation, OperationName } from './operations';

/** What the run must show, besides the invariants every scenario checks. */
export interface Expectation {
	/** How many input items end in the error output. */
	errors: 'none' | 'all' | number;
	/** What each error message must say. */
	message?: RegExp;
}

/** Where a scenario's faults aim: the operation's API path and its success status. */
type FaultTarget = Pick<Operation, 'faultPath' | 'successStatus'>;

export interface Scenario {
	name: string;
	/** Faults to queue before the run. */
	faults: (target: FaultTarget) => Fault[];
	/** The node's Options for the run. */
	options?: IDataObject;
	/** The one operation the scenario applies to (default: all). */
	only?: OperationName;
	expect: Expectation | ((operation: OperationName) => Expectation);
}

const HTML_PAGE =
	'<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>';
/** Enough to answer every attempt of every item of a run. */
const ALWAYS = 100;
type StatusFault = Extract<Fault, { kind: 'status' }>;
type ApiFault = Extract<Fault, { kind: 'reset' | 'hang' }>;

/** `count` answers with this status ('success': the operation's own 2xx) on the API path. */
function status(code: number | 'success', count: number, extra: Partial<StatusFault> = {}) {
	return ({ faultPath: path, successStatus }: FaultTarget): Fault[] => {
		const answer = code === 'success' ? successStatus : code;
		return [{ kind: 'status', status: answer, count, ...extra, path, origin: 'api' }];
	};
}

const onApi =
	(fault: ApiFault) =>
	({ faultPath: path }: FaultTarget): Fault[] => [{ ...fault, path, origin: 'api' }];
const onFiles = (fault: ApiFault | StatusFault) => (): Fault[] => [{ ...fault, origin: 'files' }];

type More = Partial<Pick<Scenario, 'options' | 'only'>>;

/** A scenario every item must get through. */
const ok = (name: string, faults: Scenario['faults'], more: More = {}): Scenario => ({
	name,
	faults,
	expect: { errors: 'none' },
	...more,
});

/** A scenario in which every item must fail, saying so. */
const allFail = (name: string, faults: Scenario['faults'], message: RegExp, more: More = {}) =>
	({ name, faults, expect: { errors: 'all', message }, ...more }) satisfies Scenario;

/** A 200 on the first page of the list that the node must refuse, failing its item. */
const listPage = (name: string, body: string, message: RegExp): Scenario => ({
	name,
	only: 'List Calls',
	faults: status(200, 1, { body }),
	expect: { errors: 1, message },
});

/** A broken 2xx body: the import is accepted (the API said 201), the others fail their item. */
const brokenBody = (name: string, body: string, listMessage: RegExp): Scenario => ({
	name,
	faults: status('success', 1, { body }),
	expect: (operation) =>
		operation === 'Import Lead'
			? { errors: 'none' }
			: {
					errors: 1,
					message:
						operation === 'List Calls' ? listMessage : /could not be read|still being processed/,
				},
});

const recording: More = { only: 'Get Recording' };

export const SCENARIOS: Scenario[] = [
	ok('no fault (baseline)', () => []),
	...[1, 2, 3, 4, 5, 6].map((count) => ok(`503 burst of ${count}`, status(503, count))),
	ok('502 x3', status(502, 3)),
	ok('504 x3', status(504, 3)),
	ok('HTML 502 error page x3', status(502, 3, { body: HTML_PAGE })),
	allFail(
		'HTML 503 page on every attempt (Max Retries 1)',
		status(503, ALWAYS, { body: HTML_PAGE }),
		/temporarily unavailable \(503\) and still failed after 2 attempts/,
		{ options: { maxRetries: 1 } },
	),
	ok('429 storm x8, Retry-After: 1', status(429, 8, { retryAfter: '1' })),
	ok('429 storm x8, Retry-After: HTTP-date', (target) =>
		status(429, 8, { retryAfter: new Date(Date.now() + 1500).toUTCString() })(target),
	),
	ok('429 storm x8, no Retry-After', status(429, 8)),
	ok('429 storm x8, Retry-After: garbage', status(429, 8, { retryAfter: 'soon-ish' })),
	allFail(
		'429, Retry-After: 3600 (beyond Max Rate-Limit Wait)',
		status(429, ALWAYS, { retryAfter: '3600' }),
		/Rate limit still exceeded \(429\).*another 1 hour/,
	),
	allFail(
		'429 on every attempt (Max Rate-Limit Wait 1 s)',
		status(429, ALWAYS, { retryAfter: '1' }),
		/Rate limit still exceeded \(429\) after waiting 1 second/,
		{ options: { maxRateLimitWait: 1 } },
	),
	ok(
		'connection reset before the body x3',
		onApi({ kind: 'reset', when: 'before-body', count: 3 }),
	),
	ok('connection reset after the body x3', onApi({ kind: 'reset', when: 'after-body', count: 3 })),
	ok('server hangs x2 (Timeout 1 s)', onApi({ kind: 'hang', count: 2 }), {
		options: { timeout: 1 },
	}),
	allFail(
		'server hangs on every attempt (Timeout 1 s, Max Retries 1)',
		onApi({ kind: 'hang', count: ALWAYS }),
		/did not answer within 1 second \(2 attempts\)/,
		{ options: { timeout: 1, maxRetries: 1 } },
	),
	brokenBody(
		'malformed JSON in the 2xx body x1',
		'{"id": "x1", "url": ',
		/was empty or not JSON \(\{"id": "x1"/,
	),
	brokenBody('empty 2xx body x1', '', /was empty or not JSON/),
	listPage(
		'list page without a list',
		'{"total": 150, "next_cursor": null}',
		/no list of calls in the answer/,
	),
	listPage('list page that is a JSON string', '"calls"', /the answer is not a list/),
	listPage(
		'list page of non-objects',
		'{"data": ["call_000001", 2, null], "next_cursor": null}',
		/are not calls/,
	),
	listPage(
		'list page as HTML with 200',
		HTML_PAGE,
		/empty or not JSON \(the server answered with an HTML page/,
	),
	listPage(
		'list page with a cursor the API rejects',
		'{"data": [{"id": "call_x"}], "next_cursor": "bogus"}',
		/\(400\): Invalid cursor/,
	),
	allFail(
		'signed URL expired (file host 403)',
		() => [{ kind: 'expire-signed-urls' }],
		/refused the recording's download link, even a fresh one \(403\)/,
		recording,
	),
	ok('truncated recording body x2', () => [{ kind: 'truncate', count: 2 }], recording),
	allFail(
		'truncated recording body on every attempt (Max Retries 1)',
		() => [{ kind: 'truncate', count: ALWAYS }],
		/download was cut off .*\(2 attempts\)/,
		{ ...recording, options: { maxRetries: 1 } },
	),
	ok('file host 503 x3', onFiles({ kind: 'status', status: 503, count: 3 }), recording),
	ok('file host reset x2', onFiles({ kind: 'reset', when: 'before-body', count: 2 }), recording),
	ok('file host hangs x1 (Timeout 1 s)', onFiles({ kind: 'hang', count: 1 }), {
		...recording,
		options: { timeout: 1 },
	}),
];
