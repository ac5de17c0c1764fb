import { RATE_LIMIT_HEADER_STYLES } from '../../devkit/emulator';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import { leads } from '../../devkit/workflows';

/**
 * The node against a server that states the key's budget in its answers, in each header
 * family the emulator can send (devkit/emulator/types.ts: RateLimitHeaderStyle).
 */
describe.each(RATE_LIMIT_HEADER_STYLES)('Rate-limit headers: %s', (headers) => {
	// A key of its own per test: the node keeps what a key's answers stated for the life of the
	// process, and each test's server is a new one.
	const keys = Array.from({ length: 3 }, (_, i) =>
		`pf_live_${headers.replace(/\W/g, '')}${i}`.padEnd(51, 'k'),
	);
	let keysUsed = 0;
	const { emulator, credentials: credentialsOf } = useEmulator({
		keys: keys.map((key) => ({ key, scopes: ['leads:write'] })),
	});
	const credentials = (overrides: Parameters<typeof credentialsOf>[0] = {}) =>
		credentialsOf({ apiKey: keys[keysUsed++], ...overrides });
	const acceptedAt = () =>
		emulator()
			.requests.filter((request) => request.status === 201)
			.map((request) => request.at);
	const rateLimited = () => emulator().requests.filter((request) => request.status === 429);

	// Rounded to the nearest second: test/unit/rateLimitStated.test.ts.
	test.each(['up', 'down'] as const)(
		'a token bucket with burst = limit, resets rounded %s: no 429, and its refill spent as it comes',
		async (resetRounding) => {
			// 2 at once, then one a second: the 5th lead at 3 s at the earliest. Rounded down, the
			// next refill, less than a second away, is stated as due with nothing left.
			emulator().setRateLimit({
				limit: 2,
				windowMs: 2000,
				algorithm: 'token-bucket',
				headers,
				resetRounding,
			});
			const result = await run(
				workflowFrom('importLeads', { items: leads(5) }),
				credentials({ requestsPerMinute: 60, rateWindowSeconds: 2 }),
			);
			expect(result.success).toHaveLength(5);
			expect(rateLimited()).toHaveLength(0);
			const at = acceptedAt();
			// Without headers the budget waits for whole windows here: 4 s. An epoch-seconds Reset
			// names the next whole second, up to 1 s after the token comes: no bound on time there.
			if (headers !== 'x-ratelimit-epoch') expect(at[4] - at[0]).toBeLessThan(3800);
		},
	);

	test("a credential twice the key's stated limit: no 429, at the stated rate", async () => {
		emulator().setRateLimit({ limit: 3, windowMs: 2000, algorithm: 'fixed-window', headers });
		const result = await run(
			workflowFrom('importLeads', { items: leads(7) }),
			credentials({ requestsPerMinute: 180, rateWindowSeconds: 2 }),
		);
		expect(result.success).toHaveLength(7);
		expect(rateLimited()).toHaveLength(0);
		expect(emulator().leads.size).toBe(7);
	});
});
