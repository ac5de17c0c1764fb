import { DEMO_KEYS } from '../../devkit/emulator';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import { keyWithAllScopes, sentinelKey } from '../../devkit/reliability/keys';
import { leads } from '../../devkit/workflows';

const statuses = (requests: Array<{ status: unknown }>) =>
	requests.map((request) => request.status);

describe('Transient failures: retries with backoff', () => {
	const { emulator, credentials } = useEmulator();

	test.each([503, 502, 504])('%i responses are retried and the import succeeds', async (status) => {
		emulator().inject({ kind: 'status', status, count: 2, path: '/v1/leads' });
		const result = await run(workflowFrom('importLeads', { items: leads(1) }), credentials());
		expect(result.success).toHaveLength(1);
		expect(statuses(emulator().requests)).toEqual([status, status, 201]);
	});

	test('503 beyond Max Retries becomes a clear item error, even when the body is an HTML page', async () => {
		emulator().inject({
			kind: 'status',
			status: 503,
			count: 3,
			path: '/v1/leads',
			body: '<html><body>Bad gateway</body></html>',
		});
		const result = await run(
			workflowFrom('importLeads', {
				items: leads(1),
				parameters: { options: { maxRetries: 2 } },
			}),
			credentials(),
		);
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0].error).toMatch(
			/temporarily unavailable \(503\) and still failed after 3 attempts/,
		);
		expect(statuses(emulator().requests)).toEqual([503, 503, 503]);
		// The follow-up run shows the service is back: nothing else was affected.
		const again = await run(workflowFrom('importLeads', { items: leads(1) }), credentials());
		expect(again.success).toHaveLength(1);
	});

	test('Max Retries: the pauses between retries grow', async () => {
		emulator().inject({ kind: 'status', status: 503, count: 3, path: '/v1/leads' });
		const result = await run(workflowFrom('importLeads', { items: leads(1) }), credentials());
		expect(result.success).toHaveLength(1);
		const at = emulator().requests.map((request) => request.at);
		const pauses = at.slice(1).map((time, index) => time - at[index]);
		// Backoff with jitter: 250-500 ms, then 500-1000, then 1000-2000.
		expect(pauses[0]).toBeGreaterThanOrEqual(240);
		expect(pauses[1]).toBeGreaterThanOrEqual(490);
		expect(pauses[2]).toBeGreaterThanOrEqual(990);
	});

	test('Max Rate-Limit Wait does not apply to other failures: a 503 with Retry-After waits as told even at 0', async () => {
		emulator().inject({
			kind: 'status',
			status: 503,
			count: 2,
			retryAfter: '1',
			path: '/v1/leads',
		});
		const started = Date.now();
		const result = await run(
			workflowFrom('importLeads', {
				items: leads(1),
				parameters: { options: { maxRateLimitWait: 0 } },
			}),
			credentials(),
		);
		expect(result.success).toHaveLength(1);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
	});

	test('a 503 asking to wait longer than 60 s fails the item at once, naming the wait', async () => {
		emulator().inject({
			kind: 'status',
			status: 503,
			count: 1,
			retryAfter: '3600',
			path: '/v1/leads',
		});
		const started = Date.now();
		const result = await run(workflowFrom('importLeads', { items: leads(1) }), credentials());
		expect(Date.now() - started).toBeLessThan(5000);
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0].error).toMatch(
			/temporarily unavailable \(503\) and asks to retry in 1 hour, longer than the 60 seconds the node waits: run it again after that time$/,
		);
		expect(statuses(emulator().requests)).toEqual([503]);
	});

	test('a 503 with Retry-After waits as told', async () => {
		emulator().inject({
			kind: 'status',
			status: 503,
			count: 1,
			retryAfter: '1',
			path: '/v1/leads',
		});
		const started = Date.now();
		const result = await run(workflowFrom('importLeads', { items: leads(1) }), credentials());
		expect(result.success).toHaveLength(1);
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
	});

	test.each(['before-body', 'after-body'] as const)(
		'a connection reset %s is retried; the upsert makes the retry safe',
		async (when) => {
			emulator().inject({ kind: 'reset', when, count: 1, path: '/v1/leads' });
			const result = await run(workflowFrom('importLeads', { items: leads(1) }), credentials());
			expect(result.success).toHaveLength(1);
			expect(emulator().leads.size).toBe(1);
			expect(statuses(emulator().requests)).toEqual(['reset', 201]);
		},
	);

	test('a server that hangs is bounded by the Timeout option, then retried', async () => {
		emulator().inject({ kind: 'hang', count: 1, path: '/v1/leads' });
		const result = await run(
			workflowFrom('importLeads', { items: leads(1), parameters: { options: { timeout: 1 } } }),
			credentials(),
		);
		expect(result.success).toHaveLength(1);
		expect(statuses(emulator().requests)).toEqual(['hang', 201]);
	});

	test('an unreachable API gives a clear error after the retries', async () => {
		const result = await run(
			workflowFrom('importLeads', { items: leads(1), parameters: { options: { maxRetries: 1 } } }),
			credentials({ baseUrl: 'http://127.0.0.1:9' }),
		);
		expect(result.errors[0].error).toMatch(
			/Nothing is listening at http:\/\/127\.0\.0\.1:9 \(connection refused\)/,
		);
	});

	test('a malformed or empty 201 body still reports the imported lead', async () => {
		emulator().inject({
			kind: 'status',
			status: 201,
			count: 1,
			path: '/v1/leads',
			body: '{"id": "lead_1", ',
		});
		emulator().inject({ kind: 'status', status: 201, count: 1, path: '/v1/leads', body: '' });
		const result = await run(workflowFrom('importLeads', { items: leads(2) }), credentials());
		expect(result.success).toEqual([
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
	const { emulator, credentials } = useEmulator();
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

	test('401: credential-invalid; a malformed key too', async () => {
		expect(await failureOf({ apiKey: `pf_live_${'x'.repeat(43)}` })).toEqual({
			cause: 'credential-invalid',
		});
		expect(await failureOf({ apiKey: 'not-a-key' })).toEqual({ cause: 'credential-invalid' });
	});

	test('403: configuration-invalid', async () => {
		expect(await failureOf({ apiKey: DEMO_KEYS.callsOnly })).toEqual({
			cause: 'configuration-invalid',
		});
	});

	test('429 beyond Max Rate-Limit Wait: rate-limited, with the wait the server asked for', async () => {
		emulator().inject({
			kind: 'status',
			status: 429,
			count: 5,
			retryAfter: '7',
			path: '/v1/leads',
		});
		expect(await failureOf({}, { maxRateLimitWait: 1 })).toEqual({
			cause: 'rate-limited',
			retryAfterMs: 7000,
		});
	});

	test('503 after the retries, or asking for a long wait, and no answer at all: temporarily-unavailable', async () => {
		emulator().inject({ kind: 'status', status: 503, count: 1, path: '/v1/leads' });
		expect(await failureOf({}, { maxRetries: 0 })).toEqual({ cause: 'temporarily-unavailable' });
		emulator().inject({
			kind: 'status',
			status: 503,
			count: 1,
			retryAfter: '900',
			path: '/v1/leads',
		});
		expect(await failureOf()).toEqual({ cause: 'temporarily-unavailable', retryAfterMs: 900_000 });
		expect(await failureOf({ baseUrl: 'http://127.0.0.1:9' }, { maxRetries: 0 })).toEqual({
			cause: 'temporarily-unavailable',
		});
	});
});

/**
 * A count the API states spent for longer than Max Rate-Limit Wait (several policies on one
 * answer, a daily one spent): the items fail at once instead of holding the workflow for hours.
 * Each test has its own key: the stated count stays in the key's process-wide budget.
 */
describe('A key whose longer quota is spent', () => {
	const keys = ['daily quota spent', 'short quota spent'].map(sentinelKey);
	const { emulator, credentials } = useEmulator({ keys: keys.flatMap(keyWithAllScopes) });
	const spentFor = (seconds: number) =>
		emulator().inject({
			kind: 'status',
			status: 201,
			count: 1,
			path: '/v1/leads',
			headers: {
				'RateLimit-Policy': '"minute";q=60;w=60, "daily";q=1000;w=86400',
				RateLimit: `"minute";r=59;t=60, "daily";r=0;t=${seconds}`,
			},
		});

	test('spent for an hour: the next items fail at once, naming the wait, with nothing sent', async () => {
		spentFor(3600);
		const started = Date.now();
		const result = await run(
			workflowFrom('importLeads', { items: leads(3) }),
			credentials({ apiKey: keys[0], requestsPerMinute: 60 }),
		);
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
			credentials({ apiKey: keys[0], requestsPerMinute: 60 }),
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
		const result = await run(
			workflowFrom('importLeads', {
				items: leads(2),
				parameters: { options: { maxRateLimitWait: 10 } },
			}),
			credentials({ apiKey: keys[1], requestsPerMinute: 60, rateWindowSeconds: 1 }),
		);
		expect(result.success).toHaveLength(2);
		const [first, second] = emulator().requests.map((request) => request.at);
		expect(second - first).toBeGreaterThanOrEqual(2900);
	});
});
