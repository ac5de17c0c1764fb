/**
 * List Calls and Get Recording with fuzzed parameters (fast-check): odd limits, query
 * parameters with odd names and values, call IDs with slashes, dots, unicode and spaces.
 * Each input item ends in one outcome with a clear message; what reaches the API is exactly
 * what the user asked for (each query parameter as given, the call ID as one path segment);
 * nothing is sent for a value the node refuses.
 */
import fc from 'fast-check';

import { oddText } from './support/arbitraries';
import { useHarness } from './support/harness';

const CALLS = 250;
/** Set by the node for pagination; a user parameter of that name is refused. */
const RESERVED = ['limit', 'cursor', 'offset', 'skip', 'starting_after'];
/** Names the HTTP client would drop silently; the node refuses them. */
const UNSENDABLE = ['__proto__', 'constructor', 'prototype'];
/** Query parameters the emulator filters on (a bad value is its 422). */
const FILTERS = ['direction', 'status', 'created_after'];
const { emulator, property } = useHarness('fuzz-parameters', { seedCalls: CALLS });

const paramName = fc.oneof(
	fc.string({ maxLength: 12 }),
	fc.constantFrom(
		...FILTERS,
		...RESERVED,
		' limit ',
		'Limit',
		'page',
		...UNSENDABLE,
		'toString',
		'a[b]',
		'a[]',
		'a.b',
		'a=b&c=d',
		'ü',
		'日本',
		'%41',
		'#frag',
		'?q',
		'',
		'  ',
	),
);
const paramValue = fc.oneof(
	fc.string({ maxLength: 20 }),
	fc.constantFrom(
		'inbound',
		'outbound',
		'missed',
		'2025-01-02T00:00:00Z',
		'not-a-date',
		'&',
		'=',
		'%zz',
		'+ +',
		'😀',
		'a b',
	),
	fc.integer(),
	fc.boolean(),
	fc.constant(null),
);
const limitValue = fc.oneof(
	fc.integer({ min: 1, max: 260 }),
	fc.integer({ min: -3, max: 0 }),
	fc.double({ min: -2, max: 300, noNaN: true }),
	fc.constantFrom('10', ' 7 ', 'abc', '', null, true, '1e2', 1e9, [], {}),
);

/** A Limit the node accepts: a whole number of 1 or more, or text that is one. */
function isWholeNumber(value: unknown): boolean {
	const numeric = typeof value === 'number' || (typeof value === 'string' && value.trim() !== '');
	return numeric && Number.isInteger(Number(value)) && Number(value) >= 1;
}

type Pair = { name: string; value: unknown };

/** What the node must send: each pair as given (name trimmed, last one wins), or refuse. */
function userQuery(pairs: Pair[]): Record<string, string> | 'refused' {
	const query = new Map<string, string>();
	for (const { name, value } of pairs) {
		const key = name.trim();
		if (key === '') continue;
		if (RESERVED.includes(key) || UNSENDABLE.includes(key)) return 'refused';
		query.set(key, value === null || value === undefined ? '' : String(value));
	}
	return Object.fromEntries(query);
}

const listing = property('fuzz: limit and query parameters', 'List Calls');

test('List Calls: each query parameter reaches the API as given, a refused one costs no request', async () => {
	const pairs = fc.array(fc.record({ name: paramName, value: paramValue }), { maxLength: 4 });
	const listCalls = listing.recorded(
		async (parameters: Pair[], limit: unknown, returnAll: boolean) => {
			// Through expressions, as a workflow maps them (a fixed value starting with "="
			// would be read by n8n as an expression itself).
			const mapped = parameters.map((_, index) => ({
				name: `={{ $json.query[${index}].name }}`,
				value: `={{ $json.query[${index}].value }}`,
			}));
			const options = { queryParameters: { parameters: mapped } };
			const item = { limit, query: parameters };
			const { accounting, requests } = await listing.runOnce('listCalls', [item], {
				returnAll,
				limit: '={{ $json.limit }}',
				options,
			});
			const failed = accounting.error.get(0)?.json.error as string | undefined;
			const returned = (accounting.success.get(0) ?? []).map((item) => item.json.id);
			const expected = userQuery(parameters);
			const badLimit = !returnAll && !isWholeNumber(limit);
			if (expected === 'refused' || badLimit) {
				expect(failed).toMatch(/is set by the node for pagination|cannot be sent|Limit must be/);
				expect(requests).toHaveLength(0);
				return;
			}
			for (const request of requests) {
				const { limit: sentLimit, ...query } = request.query;
				delete query.cursor;
				expect(query).toEqual(expected);
				const size = Number(sentLimit);
				expect(Number.isInteger(size) && size >= 1 && size <= 100).toBe(true);
			}
			if (failed) {
				// Only the API can refuse a filter value it does not know.
				expect(failed).toMatch(/The API rejected the request \(422\)/);
				return;
			}
			expect(new Set(returned).size).toBe(returned.length);
			const filtered = Object.keys(expected).some((name) => FILTERS.includes(name));
			const wanted = returnAll ? CALLS : Math.min(CALLS, Number(limit));
			if (!filtered) expect(returned).toHaveLength(wanted);
			else expect(returned.length).toBeLessThanOrEqual(wanted);
		},
	);
	await fc.assert(fc.asyncProperty(pairs, limitValue, fc.boolean(), listCalls), {
		numRuns: 150,
	});
});

const recordings = property(
	'fuzz: call IDs (slashes, dots, unicode, spaces, wrong types)',
	'Get Recording',
);

test('Get Recording: the call ID is one URL-encoded path segment, or refused before any request', async () => {
	const callId = fc.oneof(
		fc.constantFrom('call_000003', ' call_000004 ', 'call_000003/../call_000004'),
		oddText,
		fc.constantFrom(
			'a/b',
			'../x',
			'..',
			'.',
			' .. ',
			'%2e%2e',
			'%2F',
			'a b',
			'ü/ö',
			'?x=1',
			'#h',
			'\\',
			'\ud800',
		),
		fc.integer(),
		fc.boolean(),
		fc.constant(null),
		fc.constant({ id: 'call_000003' }),
		fc.constant(['call_000003']),
	);
	const getRecording = recordings.recorded(async (id: unknown, download: boolean) => {
		const { accounting, requests } = await recordings.runOnce('getRecording', [{ id }], {
			download,
		});
		const failed = accounting.error.get(0)?.json.error as string | undefined;
		expect(requests.length).toBeLessThanOrEqual(1);
		const text = typeof id === 'string' || typeof id === 'number' ? String(id).trim() : '';
		if (requests.length === 0) {
			expect(failed).toMatch(/Call ID/);
			return;
		}
		const segments = requests[0].path.split('/');
		expect(segments).toHaveLength(5);
		expect([segments[1], segments[2], segments[4]]).toEqual(['v1', 'calls', 'recording']);
		expect(decodeURIComponent(segments[3])).toBe(text);
		const known = emulator().calls.find((call) => call.id === text);
		if (known?.has_recording) expect(failed).toBeUndefined();
		else expect(failed).toMatch(/\(404\)/);
	});
	await fc.assert(fc.asyncProperty(callId, fc.boolean(), getRecording), { numRuns: 150 });
});
