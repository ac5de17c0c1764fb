import { RATE_LIMIT_HEADER_STYLES } from '../../devkit/emulator';
import { useEmulator } from '../../devkit/engine/fixtures';

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
	const { emulator, importLeads, statuses } = useEmulator({
		keys: keys.map((key) => ({ key, scopes: ['leads:write'] })),
	});
	const leadsAt = async (count: number, requestsPerMinute: number) =>
		await importLeads(count, undefined, {
			apiKey: keys[keysUsed++],
			requestsPerMinute,
			rateWindowSeconds: 2,
		});

	// Rounded to the nearest second: test/unit/rateLimitStated.test.ts.
	test.each(['up', 'down'] as const)(
		'a token bucket with burst = limit, resets rounded %s: no 429, and its refill spent as it comes',
		async (resetRounding) => {
			// 2 at once, then one a second: the 5th lead at 3 s at the earliest. Rounded down, the
			// next refill, less than a second away, is stated as due with nothing left.
			const bucket = { limit: 2, windowMs: 2000, algorithm: 'token-bucket' } as const;
			emulator().setRateLimit({ ...bucket, headers, resetRounding });
			expect((await leadsAt(5, 60)).success).toHaveLength(5);
			expect(statuses()).not.toContain(429);
			const at = emulator().requests.map((request) => request.at);
			// Without headers the budget waits for whole windows here: 4 s. An epoch-seconds Reset
			// names the next whole second, up to 1 s after the token comes: no bound on time there.
			if (headers !== 'x-ratelimit-epoch') expect(at[4] - at[0]).toBeLessThan(3800);
		},
	);

	test("a credential twice the key's stated limit: no 429, at the stated rate", async () => {
		emulator().setRateLimit({ limit: 3, windowMs: 2000, algorithm: 'fixed-window', headers });
		expect((await leadsAt(7, 180)).success).toHaveLength(7);
		expect(statuses()).not.toContain(429);
		expect(emulator().leads.size).toBe(7);
	});
});
