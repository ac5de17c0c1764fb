import type { PaginationStyle } from '../../devkit/emulator';
import { DEMO_KEYS, PAGINATION_STYLES, POSITIONAL_STYLES } from '../../devkit/emulator';
import type { WorkflowSetup } from '../../devkit/engine/fixtures';
import type { TestCredentials } from '../../devkit/engine/harness';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';

// How a page is read (list shapes, next-page hints): test/unit/pagination.test.ts.
function useCallsList(...options: Parameters<typeof useEmulator>) {
	const { emulator, credentials } = useEmulator(...options);
	return {
		emulator,
		listCalls: async (setup: WorkflowSetup, overrides: Partial<TestCredentials> = {}) =>
			await run(workflowFrom('listCalls', setup), credentials(overrides)),
		listRequests: () => emulator().requests.filter((request) => request.path === '/v1/calls'),
	};
}

/** Options with these Query Parameters. */
const query = (...parameters: Array<{ name: string; value: string }>) => ({
	options: { queryParameters: { parameters } },
});

/**
 * 230 calls at 100 per page: 3 pages. The bare list (array-skip) caps pages silently at 50:
 * 5 pages and the probe that finds the end; a Limit of 120 takes 50, 50 and 20.
 */
const REQUESTS: Partial<Record<PaginationStyle, { all: number; limit: number }>> = {
	'array-skip': { all: 6, limit: 3 },
};

describe.each([...PAGINATION_STYLES, ...POSITIONAL_STYLES])(
	'List Calls with pagination style %s',
	(paginationStyle) => {
		const { emulator, listCalls, listRequests } = useCallsList({
			paginationStyle,
			seedCalls: 230,
			...(paginationStyle === 'array-skip' ? { maxPageSize: 50 } : {}),
		});
		const requests = REQUESTS[paginationStyle] ?? { all: 3, limit: 2 };

		test('Return All follows every page and returns each call once, in list order', async () => {
			const result = await listCalls({ parameters: { returnAll: true } });
			expect(result.success.map((call) => call.id)).toEqual(
				emulator().calls.map((call) => call.id),
			);
			expect(listRequests()).toHaveLength(requests.all);
		});

		test('a limit fetches only the pages it needs', async () => {
			const result = await listCalls({ parameters: { returnAll: false, limit: 120 } });
			expect(result.success).toHaveLength(120);
			expect(result.success[119].id).toBe(emulator().calls[119].id);
			expect(listRequests()).toHaveLength(requests.limit);
			expect(listRequests()[0].query.limit).toBe('100');
		});

		test('the Query Parameters and the page size reach every page, next links too', async () => {
			const inbound = query({ name: 'direction', value: 'inbound' });
			const result = await listCalls({ parameters: { returnAll: true, ...inbound } });
			const expected = emulator().calls.filter((call) => call.direction === 'inbound');
			expect(result.success.map((call) => call.id)).toEqual(expected.map((call) => call.id));
			const sent = listRequests().map(({ query }) => [query.direction, query.limit]);
			expect(sent).toEqual(sent.map(() => ['inbound', '100']));
		});
	},
);

describe('List Calls against a service with a smaller maximum page size', () => {
	const { listCalls, listRequests } = useCallsList({
		seedCalls: 120,
		maxPageSize: 50,
		pageSizeOverflow: 'reject',
	});

	test('adapts to the maximum its 422 names and returns everything', async () => {
		const result = await listCalls({ parameters: { returnAll: true } });
		expect(result.errors).toEqual([]);
		expect(result.success).toHaveLength(120);
		const limits = listRequests().map((request) => request.query.limit);
		expect(limits).toEqual(['100', '50', '50', '50']);
	});
});

describe('List Calls on a list that does not say how it pages', () => {
	const { listCalls, listRequests, emulator } = useCallsList({ seedCalls: 0 });
	const calls = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `c${i}` }));
	/** The service answers these bodies in turn (200, or the status given). */
	const answers = (...bodies: Array<object | number>) => {
		for (const body of bodies)
			emulator().inject({
				kind: 'status',
				path: '/v1/calls',
				...(typeof body === 'number'
					? { status: body }
					: { status: 200, body: JSON.stringify(body) }),
			});
	};
	const returnAll = { parameters: { returnAll: true } };
	const deadEnd = /^The node cannot reach the calls after the first 100: /;

	test('a service that lists every call at once and ignores the probe: all of them, no error', async () => {
		answers(calls(40), calls(40));
		const result = await listCalls(returnAll);
		expect([result.success.length, result.errors]).toEqual([40, []]);
		expect(listRequests()[1].query).toEqual({ limit: '100', offset: '40', skip: '40' });
	});

	test('a full page answered to the probe with the same calls fails, saying what to set', async () => {
		answers(calls(100), calls(100));
		const { error } = await listCalls({ ...returnAll, onError: 'stopWorkflow' });
		expect(error).toMatchObject({
			message: expect.stringMatching(deadEnd),
			description: expect.stringMatching(/Query Parameters .* set Limit to 100 or less/),
		});
		expect(error?.message).toMatch(/ignored offset and skip/);
	});

	test('a probe refused after a full page fails; after a short page, the list ends there', async () => {
		answers(calls(100), 422);
		expect((await listCalls(returnAll)).errors[0].error).toMatch(deadEnd);
		answers(calls(30), 400);
		const result = await listCalls(returnAll);
		expect([result.success.length, result.errors]).toEqual([30, []]);
		expect(listRequests()).toHaveLength(4);
	});

	test('has_more with no id to start after fails only when more calls are wanted', async () => {
		const page = { data: [{ name: 'no id' }, { name: 'nor this' }], has_more: true };
		answers(page, page);
		expect((await listCalls({ parameters: { limit: 2 } })).success).toHaveLength(2);
		expect((await listCalls(returnAll)).errors[0].error).toMatch(
			/after the first 2: the list says it has more \(has_more\) but not where/,
		);
	});
});

describe('List Calls parameters and items', () => {
	const { emulator, listCalls, listRequests } = useCallsList({ seedCalls: 40 });

	test('the first page asks for the Limit with the user query parameters, nothing else', async () => {
		const inboundCompleted = query(
			{ name: 'direction', value: 'inbound' },
			{ name: 'status', value: 'completed' },
		);
		const result = await listCalls({ parameters: { limit: 5, ...inboundCompleted } });
		expect(listRequests()[0].query).toEqual({
			direction: 'inbound',
			status: 'completed',
			limit: '5',
		});
		expect(result.success).toHaveLength(5);
		expect(
			result.success.every((call) => call.direction === 'inbound' && call.status === 'completed'),
		).toBe(true);
	});

	test('one run per input item, each output paired to its input', async () => {
		const result = await listCalls({
			items: [{ direction: 'inbound' }, { direction: 'outbound' }],
			parameters: { limit: 3, ...query({ name: 'direction', value: '={{ $json.direction }}' }) },
		});
		const items = result.output('List Calls').success;
		expect(
			items.map((item) => [item.json.direction, (item.pairedItem as { item: number }).item]),
		).toEqual([
			['inbound', 0],
			['inbound', 0],
			['inbound', 0],
			['outbound', 1],
			['outbound', 1],
			['outbound', 1],
		]);
	});

	test('reserved pagination parameters are refused with a clear error', async () => {
		const result = await listCalls({ parameters: query({ name: 'cursor', value: 'x' }) });
		expect(result.errors[0].error).toMatch(/Query parameter "cursor" is set by the node/);
		expect(emulator().requests).toHaveLength(0);
	});

	test('a 422 on a query parameter is an item error naming it', async () => {
		const result = await listCalls({ parameters: query({ name: 'direction', value: 'sideways' }) });
		expect(result.errors[0].error).toMatch(/^The API rejected the request \(422\): direction: /);
		expect(result.errors[0].message).toEqual({
			httpCode: '422',
			details: [expect.objectContaining({ loc: ['query', 'direction'] })],
		});
	});

	test('403 names the calls:read scope', async () => {
		const result = await listCalls({}, { apiKey: DEMO_KEYS.leadsOnly });
		expect(result.errors[0].error).toMatch(/lacks the scope calls:read/);
	});

	test('a next-page URL on another origin is refused, naming the Base URL that would work', async () => {
		// The service is reached as localhost but writes its links with its own name.
		const { baseUrl } = emulator();
		const next = `${baseUrl}/v1/calls?cursor=2`;
		emulator().inject({
			kind: 'status',
			status: 200,
			path: '/v1/calls',
			body: JSON.stringify({ data: [{ id: 'call_x' }], next }),
		});
		const localhost = `${baseUrl.replace('127.0.0.1', 'localhost')}/`;
		const result = await listCalls({ parameters: { returnAll: true } }, { baseUrl: localhost });
		expect(result.errors[0].error).toBe(
			`Refused to follow a link to ${baseUrl}: the API key is only sent to the credential's Base URL (${localhost.slice(0, -1)}). If ${baseUrl} is the service's own address, the one it uses in its links, set the credential's Base URL to ${baseUrl}`,
		);
		expect(listRequests()).toHaveLength(1);
	});
});
