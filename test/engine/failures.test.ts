import { DEMO_KEYS } from '../../devkit/emulator';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import { keyWithAllScopes, sentinelKey } from '../../devkit/reliability/keys';
import { leads } from '../../devkit/workflows';

// When to retry and how long to wait is decideRetry's (test/unit/retry.test.ts); these check
// that the node applies it and what the user then reads.
describe('Transient failures: retries with backoff', () => {
	const { emulator, importLeads, failLeads, statuses } = useEmulator();

	// Which statuses are transient (502, 504, 408…): test/unit/retry.test.ts › backoff.
	test('503 responses are retried and the import succeeds', async () => {
		failLeads(503, 2);
		expect((await importLeads(1)).success).toHaveLength(1);
		expect(statuses()).toEqual([503, 503, 201]);
	});

	test('503 beyond Max Retries becomes a clear item error, even when the body is an HTML page', async () => {
		failLeads(503, 3, { body: '<html><body>Bad gateway</body></html>' });
		const result = await importLeads(1, { maxRetries: 2 });
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0].error).toMatch(
			/temporarily unavailable \(503\) and still failed after 3 attempts/,
		);
		expect(statuses()).toEqual([503, 503, 503]);
		// The follow-up run shows the service is back: nothing else was affected.
		expect((await importLeads(1)).success).toHaveLength(1);
	});

	test('Max Rate-Limit Wait does not apply to other failures: a 503 with Retry-After waits as told even at 0', async () => {
		failLeads(503, 2, { retryAfter: '1' });
		const started = Date.now();
		const result = await importLeads(1, { maxRateLimitWait: 0 });
		expect(result.success).toHaveLength(1);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
	});

	test('a 503 asking to wait longer than 60 s fails the item at once, naming the wait', async () => {
		failLeads(503, 1, { retryAfter: '3600' });
		const started = Date.now();
		const result = await importLeads(1);
		expect(Date.now() - started).toBeLessThan(5000);
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0].error).toMatch(
			/temporarily unavailable \(503\) and asks to retry in 1 hour, longer than the 60 seconds the node waits: run it again after that time$/,
		);
		expect(statuses()).toEqual([503]);
	});

	test.each(['before-body', 'after-body'] as const)(
		'a connection reset %s is retried; the upsert makes the retry safe',
		async (when) => {
			emulator().inject({ kind: 'reset', when, count: 1, path: '/v1/leads' });
			expect((await importLeads(1)).success).toHaveLength(1);
			expect(emulator().leads.size).toBe(1);
			expect(statuses()).toEqual(['reset', 201]);
		},
	);

	test('a server that hangs is bounded by the Timeout option, then retried', async () => {
		emulator().inject({ kind: 'hang', count: 1, path: '/v1/leads' });
		expect((await importLeads(1, { timeout: 1 })).success).toHaveLength(1);
		expect(statuses()).toEqual(['hang', 201]);
	});

	test('an unreachable API gives a clear error after the retries', async () => {
		const result = await importLeads(1, { maxRetries: 1 }, { baseUrl: 'http://127.0.0.1:9' });
		expect(result.errors[0].error).toMatch(
			/Nothing is listening at http:\/\/127\.0\.0\.1:9 \(connection refused\)/,
		);
	});

	test('a malformed or empty 201 body still reports the imported lead', async () => {
		failLeads(201, 1, { body: '{"id": "lead_1", ' });
		failLeads(201, 1, { body: '' });
		expect((await importLeads(2)).success).toEqual([
			{ phone_e164: '+14155550000', name: 'Lead 0' },
			{ phone_e164: '+14155550001', name: 'Lead 1' },
		]);
	});
});

/**
 * The cause each error declares (n8n-workflow's `errors/failure`), as n8n 2.x's poll scheduler
 * reads it from the error a node throws (here: the workflow's error, On Error: Stop).
 */
describe('Declared failure causes', () => {
	const { credentials, failLeads } = useEmulator();
	const failureOf = async (credentialOverrides = {}, options = {}) => {
		const result = await run(
			workflowFrom('importLeads', {
				items: leads(1),
				onError: 'stopWorkflow',
				parameters: { options },
			}),
			credentials(credentialOverrides),
		);
		return (result.error as { failure?: unknown } | undefined)?.failure;
	};

	test('401: credential-invalid (a malformed key too); 403: configuration-invalid', async () => {
		const invalid = { cause: 'credential-invalid' };
		expect(await failureOf({ apiKey: `pf_live_${'x'.repeat(43)}` })).toEqual(invalid);
		expect(await failureOf({ apiKey: 'not-a-key' })).toEqual(invalid);
		const forbidden = await failureOf({ apiKey: DEMO_KEYS.callsOnly });
		expect(forbidden).toEqual({ cause: 'configuration-invalid' });
	});

	test('429 beyond Max Rate-Limit Wait: rate-limited, with the wait the server asked for', async () => {
		failLeads(429, 5, { retryAfter: '7' });
		expect(await failureOf({}, { maxRateLimitWait: 1 })).toEqual({
			cause: 'rate-limited',
			retryAfterMs: 7000,
		});
	});

	test('503 after the retries, or asking for a long wait, and no answer at all: temporarily-unavailable', async () => {
		const unavailable = { cause: 'temporarily-unavailable' };
		failLeads(503, 1);
		expect(await failureOf({}, { maxRetries: 0 })).toEqual(unavailable);
		failLeads(503, 1, { retryAfter: '900' });
		expect(await failureOf()).toEqual({ ...unavailable, retryAfterMs: 900_000 });
		const unreachable = { baseUrl: 'http://127.0.0.1:9' };
		expect(await failureOf(unreachable, { maxRetries: 0 })).toEqual(unavailable);
	});
});

/**
 * A count the API states spent for longer than Max Rate-Limit Wait (several policies on one
 * answer, a daily one spent): the items fail at once instead of holding the workflow for hours.
 * Each test has its own key: the stated count stays in the key's process-wide budget.
 */
describe('A key whose longer quota is spent', () => {
	const keys = ['daily quota spent', 'short quota spent'].map(sentinelKey);
	const { emulator, credentials, importLeads, failLeads } = useEmulator({
		keys: keys.flatMap(keyWithAllScopes),
	});
	const spentFor = (seconds: number) =>
		failLeads(201, 1, {
			headers: {
				'RateLimit-Policy': '"minute";q=60;w=60, "daily";q=1000;w=86400',
				RateLimit: `"minute";r=59;t=60, "daily";r=0;t=${seconds}`,
			},
		});

	test('spent for an hour: the next items fail at once, naming the wait, with nothing sent', async () => {
		spentFor(3600);
		const started = Date.now();
		const key = { apiKey: keys[0], requestsPerMinute: 60 };
		const result = await importLeads(3, undefined, key);
		expect(result.success).toHaveLength(1);
		expect(result.errors.map((error) => error.error)).toEqual([
			expect.stringMatching(
				/^The API key has no requests left for another 1 hour, .* allows 5 minutes: run the workflow again after that time, or raise Max Rate-Limit Wait$/,
			),
			expect.stringMatching(/^The API key has no requests left for another 1 hour/),
		]);
		expect(emulator().requests).toHaveLength(1);
		expect(Date.now() - started).toBeLessThan(5000);
		// The error declares it (n8n 2.x backs a polling trigger off by it).
		const stopped = await run(
			workflowFrom('importLeads', { items: leads(1), onError: 'stopWorkflow' }),
			credentials(key),
		);
		expect((stopped.error as { failure?: unknown }).failure).toEqual({
			cause: 'rate-limited',
			retryAfterMs: expect.any(Number),
		});
		expect(
			(stopped.error as { failure: { retryAfterMs: number } }).failure.retryAfterMs,
		).toBeGreaterThan(3_500_000);
	});

	test('spent for less than Max Rate-Limit Wait: the item waits for the stated reset', async () => {
		spentFor(3);
		const key = { apiKey: keys[1], requestsPerMinute: 60, rateWindowSeconds: 1 };
		const result = await importLeads(2, { maxRateLimitWait: 10 }, key);
		expect(result.success).toHaveLength(2);
		const [first, second] = emulator().requests.map((request) => request.at);
		expect(second - first).toBeGreaterThanOrEqual(2900);
	});
});
