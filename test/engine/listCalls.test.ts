import { PAGE_NUMBER_STYLE, PAGINATION_STYLES } from '../../devkit/emulator';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';

const listRequests = (requests: Array<{ path: string; query: Record<string, string> }>) =>
	requests.filter((request) => request.path === '/v1/calls');

describe.each([...PAGINATION_STYLES, PAGE_NUMBER_STYLE])(
	'List Calls with pagination style %s',
	(paginationStyle) => {
		const { emulator, credentials } = useEmulator({ paginationStyle, seedCalls: 230 });

		test('Return All follows every page and returns each call once, in list order', async () => {
			const result = await run(
				workflowFrom('listCalls', { parameters: { returnAll: true } }),
				credentials(),
			);
			expect(result.success.map((call) => call.id)).toEqual(
				emulator().calls.map((call) => call.id),
			);
			// 230 calls at 100 per page: exactly 3 pages.
			expect(listRequests(emulator().requests)).toHaveLength(3);
		});

		test('a limit fetches only the pages it needs', async () => {
			const result = await run(
				workflowFrom('listCalls', { parameters: { returnAll: false, limit: 120 } }),
				credentials(),
			);
			expect(result.success).toHaveLength(120);
			expect(result.success[119].id).toBe(emulator().calls[119].id);
			const requests = listRequests(emulator().requests);
			expect(requests).toHaveLength(2);
			expect(requests[0].query.limit).toBe('100');
		});
	},
);

describe('List Calls against a service with a smaller maximum page size', () => {
	const { emulator, credentials } = useEmulator({
		seedCalls: 120,
		maxPageSize: 50,
		pageSizeOverflow: 'reject',
	});

	test('adapts to the maximum its 422 names and returns everything', async () => {
		const result = await run(
			workflowFrom('listCalls', { parameters: { returnAll: true } }),
			credentials(),
		);
		expect(result.errors).toEqual([]);
		expect(result.success).toHaveLength(120);
		expect(listRequests(emulator().requests).map((request) => request.query.limit)).toEqual([
			'100',
			'50',
			'50',
			'50',
		]);
	});
});

describe('List Calls parameters and items', () => {
	const { emulator, credentials } = useEmulator({ seedCalls: 40 });

	test('sends limit on the first page and the user query parameters on every page', async () => {
		const result = await run(
			workflowFrom('listCalls', {
				parameters: {
					limit: 5,
					options: {
						queryParameters: {
							parameters: [
								{ name: 'direction', value: 'inbound' },
								{ name: 'status', value: 'completed' },
							],
						},
					},
				},
			}),
			credentials(),
		);
		const [request] = listRequests(emulator().requests);
		expect(request.query).toEqual({ direction: 'inbound', status: 'completed', limit: '5' });
		expect(result.success).toHaveLength(5);
		expect(
			result.success.every((call) => call.direction === 'inbound' && call.status === 'completed'),
		).toBe(true);
	});

	test('one run per input item, each output paired to its input', async () => {
		const workflow = workflowFrom('listCalls', {
			items: [{ direction: 'inbound' }, { direction: 'outbound' }],
			parameters: {
				limit: 3,
				options: {
					queryParameters: { parameters: [{ name: 'direction', value: '={{ $json.direction }}' }] },
				},
			},
		});
		const result = await run(workflow, credentials());
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
		const result = await run(
			workflowFrom('listCalls', {
				parameters: {
					options: { queryParameters: { parameters: [{ name: 'cursor', value: 'x' }] } },
				},
			}),
			credentials(),
		);
		expect(result.errors[0].error).toMatch(/Query parameter "cursor" is set by the node/);
		expect(emulator().requests).toHaveLength(0);
	});

	test('a 422 on a query parameter is an item error naming it', async () => {
		const result = await run(
			workflowFrom('listCalls', {
				parameters: {
					options: { queryParameters: { parameters: [{ name: 'direction', value: 'sideways' }] } },
				},
			}),
			credentials(),
		);
		expect(result.errors[0].error).toMatch(/^The API rejected the request \(422\): direction: /);
		expect(result.errors[0].message).toEqual({
			httpCode: '422',
			details: [expect.objectContaining({ loc: ['query', 'direction'] })],
		});
	});

	test('403 names the calls:read scope', async () => {
		const { DEMO_KEYS } = await import('../../devkit/emulator');
		const result = await run(
			workflowFrom('listCalls'),
			credentials({ apiKey: DEMO_KEYS.leadsOnly }),
		);
		expect(result.errors[0].error).toMatch(/lacks the scope calls:read/);
	});

	test('page-number pagination (page of pages) is followed', async () => {
		const pages = [
			{ items: [{ id: 'c1' }, { id: 'c2' }], page: 1, pages: 2, total: 3 },
			{ items: [{ id: 'c3' }], page: 2, pages: 2, total: 3 },
		];
		for (const body of pages) {
			emulator().inject({
				kind: 'status',
				status: 200,
				path: '/v1/calls',
				body: JSON.stringify(body),
			});
		}
		const result = await run(
			workflowFrom('listCalls', { parameters: { returnAll: true } }),
			credentials(),
		);
		expect(result.success.map((call) => call.id)).toEqual(['c1', 'c2', 'c3']);
		expect(listRequests(emulator().requests).map((request) => request.query.page)).toEqual([
			undefined,
			'2',
		]);
	});

	test('a page that is not a list is a clear error, not a crash', async () => {
		emulator().inject({ kind: 'status', status: 200, path: '/v1/calls', body: '{"total": 3}' });
		const result = await run(workflowFrom('listCalls'), credentials());
		expect(result.errors[0].error).toMatch(
			/^The calls list could not be read: no list of calls in the answer \(its fields: /,
		);
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
		const result = await run(
			workflowFrom('listCalls', { parameters: { returnAll: true } }),
			credentials(),
		);
		expect(result.errors[0].error).toMatch(
			/Refused to follow a link to https:\/\/evil\.example\.com/,
		);
	});
});
