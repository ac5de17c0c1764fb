import { DEMO_KEYS } from '../../devkit/emulator';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import { leads } from '../../devkit/workflows';

const statuses = (requests: Array<{ status: unknown }>) =>
	requests.map((request) => request.status);

describe('Rate limits: pacing and Retry-After', () => {
	const { emulator, credentials } = useEmulator();

	const rateLimited = () => statuses(emulator().requests).filter((status) => status === 429).length;

	test('a window server told its true budget: the whole window at once, never a 429', async () => {
		// 6 requests per 3 s on the server; the credential says the same (120 per minute, in
		// windows of 3 s).
		emulator().setRateLimit({ limit: 6, windowMs: 3000, algorithm: 'sliding-log' });
		const result = await run(
			workflowFrom('importLeads', { items: leads(15) }),
			credentials({ requestsPerMinute: 120, rateWindowSeconds: 3 }),
		);
		expect(result.success).toHaveLength(15);
		expect(rateLimited()).toBe(0);
		const times = emulator().requests.map((request) => request.at - emulator().requests[0].at);
		// The first window's 6 went at once, not spaced out over the window; the rest waited.
		expect(times[5]).toBeLessThan(1500);
		expect(times[14]).toBeGreaterThanOrEqual(2 * 3000);
	});

	// 3 per 3 s: one request a second, so 2 % of the spacing (20 ms) covers this machine's jitter.
	test.each([
		// One 429 teaches that bursts are refused (a second may come from scheduling jitter).
		['a token bucket without burst', { algorithm: 'token-bucket', burst: 1 } as const, 60, 2],
		// Told twice the real budget: the share halves in a few steps.
		['half the budget the credential says', { algorithm: 'sliding-log' } as const, 120, 5],
	])(
		'learns a stricter server (%s): a few 429s, then none; nothing lost',
		async (_label, server, requestsPerMinute, most429) => {
			emulator().setRateLimit({ limit: 3, windowMs: 3000, ...server });
			const result = await run(
				workflowFrom('importLeads', { items: leads(12) }),
				credentials({ requestsPerMinute, rateWindowSeconds: 3 }),
			);
			expect(result.success).toHaveLength(12);
			expect(rateLimited()).toBeGreaterThan(0);
			expect(rateLimited()).toBeLessThanOrEqual(most429);
		},
	);

	test('without pacing, 429 + Retry-After pauses and retries the same request: nothing is lost', async () => {
		emulator().setRateLimit({ limit: 4, windowMs: 1000, algorithm: 'fixed-window' });
		const result = await run(workflowFrom('importLeads', { items: leads(10) }), credentials());
		expect(result.success).toHaveLength(10);
		expect(result.errors).toHaveLength(0);
		expect(emulator().leads.size).toBe(10);
		expect(statuses(emulator().requests)).toContain(429);
	});

	test.each([
		['delta-seconds', '1'],
		['an HTTP-date', 'date'],
		['missing', undefined],
		['garbage', 'soon-ish'],
	])('429 with Retry-After as %s is waited out and retried', async (_label, retryAfter) => {
		const header = retryAfter === 'date' ? new Date(Date.now() + 1500).toUTCString() : retryAfter;
		emulator().inject({
			kind: 'status',
			status: 429,
			count: 2,
			retryAfter: header,
			path: '/v1/leads',
		});
		const started = Date.now();
		const result = await run(workflowFrom('importLeads', { items: leads(1) }), credentials());
		expect(result.success).toHaveLength(1);
		expect(statuses(emulator().requests)).toEqual([429, 429, 201]);
		if (retryAfter === '1') expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
	});

	test('the Max Rate-Limit Wait option turns an endless 429 into a clear item error', async () => {
		emulator().inject({
			kind: 'status',
			status: 429,
			count: 50,
			retryAfter: '1',
			path: '/v1/leads',
		});
		const result = await run(
			workflowFrom('importLeads', {
				items: leads(1),
				parameters: { options: { maxRateLimitWait: 2 } },
			}),
			credentials(),
		);
		expect(result.success).toHaveLength(0);
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0].error).toMatch(/Rate limit still exceeded \(429\) after waiting 2 s/);
		expect(emulator().requests).toHaveLength(3);
	});

	test('Max Retries does not count 429 answers', async () => {
		emulator().inject({
			kind: 'status',
			status: 429,
			count: 2,
			retryAfter: '0',
			path: '/v1/leads',
		});
		const result = await run(
			workflowFrom('importLeads', { items: leads(1), parameters: { options: { maxRetries: 0 } } }),
			credentials(),
		);
		expect(result.success).toHaveLength(1);
		expect(statuses(emulator().requests)).toEqual([429, 429, 201]);
	});

	test('two executions using the same key share one budget', async () => {
		emulator().setRateLimit({ limit: 6, windowMs: 3000, algorithm: 'sliding-log' });
		const budget = credentials({ requestsPerMinute: 120, rateWindowSeconds: 3 });
		const [first, second] = await Promise.all([
			run(workflowFrom('importLeads', { items: leads(5, 0) }), budget),
			run(workflowFrom('importLeads', { items: leads(5, 100) }), budget),
		]);
		expect(first.success.length + second.success.length).toBe(10);
		expect(statuses(emulator().requests).filter((status) => status === 429)).toHaveLength(0);
	});

	test('keys do not share a budget: another key is not slowed down', async () => {
		// The first key's second window of 6 requests waits 3 s.
		const slow = run(
			workflowFrom('importLeads', { items: leads(12) }),
			credentials({ requestsPerMinute: 120, rateWindowSeconds: 3 }),
		);
		const startedAt = Date.now();
		const other = await run(
			workflowFrom('importLeads', { items: leads(3, 50) }),
			credentials({ apiKey: DEMO_KEYS.leadsOnly, requestsPerMinute: 120, rateWindowSeconds: 3 }),
		);
		// The other key's 3 requests go at once, not behind the first key's queue.
		expect(Date.now() - startedAt).toBeLessThan(2500);
		expect(other.success).toHaveLength(3);
		expect((await slow).success).toHaveLength(12);
	});
});
