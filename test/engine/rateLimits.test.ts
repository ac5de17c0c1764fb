import { DEMO_KEYS } from '../../devkit/emulator';
import { useEmulator } from '../../devkit/engine/fixtures';
import { leads } from '../../devkit/workflows';

// The rules themselves: test/unit/rateLimit.test.ts on a simulated clock. These check what
// only real time against a server shows.
describe('Rate limits: pacing and Retry-After', () => {
	const { emulator, importLeads, failLeads, statuses } = useEmulator();
	const rateLimited = () => statuses().filter((status) => status === 429).length;
	/** A credential at this many requests a minute, in windows of 3 s. */
	const paced = (requestsPerMinute: number, apiKey: string = DEMO_KEYS.full) => ({
		apiKey,
		requestsPerMinute,
		rateWindowSeconds: 3,
	});

	test('a window server told its true budget: the whole window at once, never a 429', async () => {
		// 6 requests per 3 s on the server; the credential says the same.
		emulator().setRateLimit({ limit: 6, windowMs: 3000, algorithm: 'sliding-log' });
		expect((await importLeads(15, undefined, paced(120))).success).toHaveLength(15);
		expect(rateLimited()).toBe(0);
		const times = emulator().requests.map((request) => request.at - emulator().requests[0].at);
		// The first window's 6 went at once, not spaced out over the window; the rest waited.
		expect(times[5]).toBeLessThan(1500);
		expect(times[14]).toBeGreaterThanOrEqual(2 * 3000);
	});

	// How few 429s each lesson costs is a count of real time: the rate bench prints it
	// (bench/rate-limits.md), and test/unit/rateLimit.test.ts pins each rule on a simulated clock.
	// Here a count would check the machine's load: requests a second apart meet a 429 from
	// scheduling jitter alone (measured: 2 with the rules and 5 with no rule at all when idle; 5
	// with the rules in a CI run while n8n installed beside it).
	test.each([
		['a token bucket without burst', { algorithm: 'token-bucket', burst: 1 } as const, 60],
		['half the budget the credential says', { algorithm: 'sliding-log' } as const, 120],
	])(
		'a stricter server than the credential says (%s): its 429s waited out, nothing lost',
		async (_label, server, requestsPerMinute) => {
			emulator().setRateLimit({ limit: 3, windowMs: 3000, ...server });
			expect((await importLeads(12, undefined, paced(requestsPerMinute))).success).toHaveLength(12);
			expect(rateLimited()).toBeGreaterThan(0);
			expect(emulator().leads.size).toBe(12);
		},
	);

	// An HTTP-date or unreadable Retry-After: parseRetryAfter, decideRetry (test/unit/retry.test.ts).
	test.each([
		['delta-seconds', '1'],
		['missing', undefined],
	])('429 with Retry-After as %s is waited out and retried', async (_label, retryAfter) => {
		failLeads(429, 2, { retryAfter });
		const started = Date.now();
		expect((await importLeads(1)).success).toHaveLength(1);
		expect(statuses()).toEqual([429, 429, 201]);
		if (retryAfter === '1') expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
	});

	test('the Max Rate-Limit Wait option turns an endless 429 into a clear item error', async () => {
		failLeads(429, 50, { retryAfter: '1' });
		const result = await importLeads(1, { maxRateLimitWait: 2 });
		expect(result.success).toHaveLength(0);
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0].error).toMatch(/Rate limit still exceeded \(429\) after waiting 2 s/);
		expect(emulator().requests).toHaveLength(3);
	});

	test('two executions using the same key share one budget', async () => {
		emulator().setRateLimit({ limit: 6, windowMs: 3000, algorithm: 'sliding-log' });
		const [first, second] = await Promise.all([
			importLeads(leads(5, 0), undefined, paced(120)),
			importLeads(leads(5, 100), undefined, paced(120)),
		]);
		expect(first.success.length + second.success.length).toBe(10);
		expect(rateLimited()).toBe(0);
	});

	test('keys do not share a budget: another key is not slowed down', async () => {
		// The first key's second window of 6 requests waits 3 s.
		const slow = importLeads(12, undefined, paced(120));
		const startedAt = Date.now();
		const other = await importLeads(leads(3, 50), undefined, paced(120, DEMO_KEYS.leadsOnly));
		// The other key's 3 requests go at once, not behind the first key's queue.
		expect(Date.now() - startedAt).toBeLessThan(2500);
		expect(other.success).toHaveLength(3);
		expect((await slow).success).toHaveLength(12);
	});
});
