import { DEMO_KEYS, PAGE_NUMBER_STYLE, PAGINATION_STYLES } from '../../devkit/emulator';
import type { WorkflowSetup } from '../../devkit/engine/fixtures';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';

// How a page is read (list shapes, next-page hints): test/unit/pagination.test.ts.
function useCallsList(...options: Parameters<typeof useEmulator>) {
	const { emulator, credentials } = useEmulator(...options);
	return {
		emulator,
		listCalls: async (setup: WorkflowSetup, apiKey: string = DEMO_KEYS.full) =>
			await run(workflowFrom('listCalls', setup), credentials({ apiKey })),
		listRequests: () => emulator().requests.filter((request) => request.path === '/v1/calls'),
	};
}

/** Options with these Query Parameters. */
const query = (...parameters: Array<{ name: string; value: string }>) => ({
	options: { queryParameters: { parameters } },
});

describe.each([...PAGINATION_STYLES, PAGE_NUMBER_STYLE])(
	'List Calls with pagination style %s',
	(paginationStyle) => {
		const { emulator, listCalls, listRequests } = useCallsList({
			paginationStyle,
			seedCalls: 230,
		});

		test('Return All follows every page and returns each call once, in list order', async () => {
			const result = await listCalls({ parameters: { returnAll: true } });
			expect(result.success.map((call) => call.id)).toEqual(
				emulator().calls.map((call) => call.id),
			);
			// 230 calls at 100 per page: exactly 3 pages.
			expect(listRequests()).toHaveLength(3);
		});

		test('a limit fetches only the pages it needs', async () => {
			const result = await listCalls({ parameters: { returnAll: false, limit: 120 } });
			expect(result.success).toHaveLength(120);
			expect(result.success[119].id).toBe(emulator().calls[119].id);
			expect(listRequests()).toHaveLength(2);
			expect(listRequests()[0].query.limit).toBe('100');
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

describe('List Calls parameters and items', () => {
	const { emulator, listCalls, listRequests } = useCallsList({ seedCalls: 40 });

	test('sends limit on the first page and the user query parameters on every page', async () => {
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
		const result = await listCalls({}, DEMO_KEYS.leadsOnly);
		expect(result.errors[0].error).toMatch(/lacks the scope calls:read/);
	});

	test('a next-page URL on another origin is refused, so the key never goes there', async () => {
		emulator().inject({
			kind: 'status',
			status: 200,
			path: '/v1/calls',
			body: JSON.stringify({
				data: [{ id: 'call_x' }],
				next: 'https://evil.example.com/v1/calls?cursor=2',
			}),
		});
		const result = await listCalls({ parameters: { returnAll: true } });
		expect(result.errors[0].error).toMatch(
			/Refused to follow a link to https:\/\/evil\.example\.com/,
		);
	});
});
