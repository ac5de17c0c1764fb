import { simulate } from '../../devkit/budgetSim';
import { RateLimiter } from '../../devkit/emulator/rate-limit';
import type { RateLimitConfig } from '../../devkit/emulator/types';
import { RateBudget, budgetForKey, type Departure } from '../../nodes/shared/transport/pacer';
import { readRateLimitHeaders } from '../../nodes/shared/transport/rateLimitHeaders';

// The budget on a simulated clock: 10 requests per 10 s window (60 per minute).
const WINDOW = 10_000;
const LIMIT = 10;
const budget = () => new RateBudget({ requestsPerMinute: 60, windowMs: WINDOW });

/** Asks at `now`; returns the departure or the wait. */
function ask(b: RateBudget, now: number): Departure | number {
	return b.departOrWait(now);
}

/**
 * Sends `count` requests one after another through the budget against the emulator's limiter,
 * answered 5 ms after they leave; a 429 pauses the key for its Retry-After. Returns when each
 * request was accepted and how many 429s there were.
 */
function drive(b: RateBudget, server: RateLimitConfig, count: number, start = 0) {
	let now = start;
	const limiter = new RateLimiter(server, () => now);
	const acceptedAt: number[] = [];
	let rateLimited = 0;
	while (acceptedAt.length < count) {
		const departure = b.departOrWait(now);
		if (typeof departure === 'number') {
			now += departure;
			continue;
		}
		const decision = limiter.take('key');
		now += 5;
		b.observe(readRateLimitHeaders(decision.headers, now), now, !decision.ok);
		b.settle(departure, now, !decision.ok);
		if (decision.ok) acceptedAt.push(now);
		else {
			rateLimited++;
			b.pauseUntil(now + decision.retryAfterSeconds * 1000);
		}
	}
	return { acceptedAt, rateLimited, endedAt: now };
}

describe('RateBudget', () => {
	test('spends the whole window at once, then waits a window after the answers', () => {
		const b = budget();
		const departures = Array.from({ length: LIMIT }, () => ask(b, 0));
		// The first leaves; the rest of the burst waits for it (one at a time beyond even spacing).
		expect(typeof departures[0]).toBe('object');
		expect(departures.slice(1)).toEqual(Array(LIMIT - 1).fill(10));
		b.settle(departures[0] as Departure, 5, false);
		for (let i = 1; i < LIMIT; i++) {
			const departure = ask(b, 5 * i) as Departure;
			expect(typeof departure).toBe('object');
			b.settle(departure, 5 * i + 5, false);
		}
		// The 11th may only leave a window (plus margin) after the first answer came back.
		const wait = ask(b, 100) as number;
		expect(100 + wait).toBeGreaterThanOrEqual(5 + WINDOW);
		expect(100 + wait).toBeLessThanOrEqual(5 + WINDOW * 1.03);
	});

	test('an answer still in flight keeps its place in the window', () => {
		const b = budget();
		const first = drive(b, { limit: 100, windowMs: WINDOW, algorithm: 'sliding-log' }, LIMIT - 1);
		const inFlight = ask(b, first.endedAt) as Departure;
		expect(typeof inFlight).toBe('object');
		// Long after, the window is still counted as full while the answer has not come back.
		expect(typeof ask(b, first.endedAt + 5 * WINDOW)).toBe('number');
		b.settle(inFlight, first.endedAt + 5 * WINDOW, false);
		expect(typeof ask(b, first.endedAt + 5 * WINDOW)).toBe('object');
	});

	test.each(['sliding-log', 'fixed-window'] as const)(
		'a %s server told its true budget: no 429, in the fastest time it allows',
		(algorithm) => {
			const { acceptedAt, rateLimited } = drive(
				budget(),
				{ limit: LIMIT, windowMs: WINDOW, algorithm },
				25,
			);
			expect(rateLimited).toBe(0);
			// 10 at once, 10 a window later, 5 a window after that: 2 windows, plus the margins.
			expect(acceptedAt[24] - acceptedAt[0]).toBeLessThanOrEqual(2 * WINDOW * 1.05);
		},
	);

	test('a token bucket without burst: one 429, then even spacing at the full rate', () => {
		const b = budget();
		const server = { limit: LIMIT, windowMs: WINDOW, algorithm: 'token-bucket', burst: 1 } as const;
		const { acceptedAt, rateLimited } = drive(b, server, 25);
		expect(rateLimited).toBe(1);
		expect(b.state).toMatchObject({ share: 1, burst: 1 });
		const steadyMs = (acceptedAt[24] - acceptedAt[4]) / 20;
		expect(steadyMs).toBeLessThanOrEqual((WINDOW / LIMIT) * 1.05);
	});

	test('a 429 at even spacing shrinks the share; successes grow it back within a few windows', () => {
		const b = budget();
		// Learn that bursts are refused, then meet a server that allows only half the budget.
		drive(b, { limit: LIMIT, windowMs: WINDOW, algorithm: 'token-bucket', burst: 1 }, 3);
		const half = drive(
			b,
			{ limit: LIMIT / 2, windowMs: WINDOW, algorithm: 'token-bucket', burst: 1 },
			10,
			100_000,
		);
		expect(half.rateLimited).toBeGreaterThan(0);
		expect(b.state.share).toBeLessThan(1);
		const shrunk = b.state.share;
		// The other client has gone: the full budget comes back.
		const alone = drive(
			b,
			{ limit: LIMIT, windowMs: WINDOW, algorithm: 'token-bucket', burst: 1 },
			40,
			half.endedAt,
		);
		expect(alone.rateLimited).toBe(0);
		expect(b.state.share).toBeGreaterThan(shrunk);
		expect(b.state.share).toBe(1);
	});

	test('the 429s of requests sent before a lesson teach nothing more', () => {
		const b = budget();
		// Two even-spaced requests in flight at once (burst already learnt to be 1).
		const { endedAt: now } = drive(
			b,
			{ limit: LIMIT, windowMs: WINDOW, algorithm: 'token-bucket', burst: 1 },
			2,
		);
		const first = ask(b, now + 1_100) as Departure;
		const second = ask(b, now + 2_200) as Departure;
		expect([typeof first, typeof second]).toEqual(['object', 'object']);
		b.settle(first, now + 2_300, true);
		const afterOne = b.state.share;
		b.settle(second, now + 2_301, true);
		expect(b.state.share).toBe(afterOne);
		expect(afterOne).toBeLessThan(1);
	});

	test('Retry-After holds back every request of the key', () => {
		const b = budget();
		b.pauseUntil(30_000);
		expect(ask(b, 1_000)).toBe(29_000);
	});

	test('0 requests per minute turns pacing off', () => {
		const b = new RateBudget({ requestsPerMinute: 0 });
		const departures = Array.from({ length: 100 }, () => ask(b, 1_000));
		expect(departures.every((d) => typeof d === 'object')).toBe(true);
	});

	test('one budget per key, shared by every caller; other keys are independent', () => {
		const key = `pf_live_${'k'.repeat(43)}`;
		const limit = { requestsPerMinute: 60 };
		expect(budgetForKey(key, limit)).toBe(budgetForKey(key, limit));
		expect(budgetForKey(`pf_live_${'j'.repeat(43)}`, limit)).not.toBe(budgetForKey(key, limit));
	});
});

describe('RateBudget with the windows the server states', () => {
	const stated = (remaining: number, resetAtMs: number, limit = LIMIT) => [
		{ remaining, resetAtMs, limit, windowMs: WINDOW },
	];

	/** Three answers one at a time (a fresh key's first requests), stating these counts. */
	function warm(b: RateBudget, remaining: number[], resetAtMs: number, limit = LIMIT): number {
		let now = 0;
		for (const left of remaining) {
			const departure = ask(b, now) as Departure;
			now += 5;
			b.observe(stated(left, resetAtMs, limit), now, false);
			b.settle(departure, now, false);
		}
		return now;
	}

	test('no request leaves while the stated remaining, less what is in flight, is zero; one leaves at the reset', () => {
		const b = budget();
		const now = warm(b, [4, 3, 2], 4_000);
		const [second, third] = [ask(b, now), ask(b, now)];
		expect([typeof second, typeof third]).toEqual(['object', 'object']);
		// Two left, two in flight: the next waits for their answers, then for the reset.
		expect(ask(b, now)).toBe(10);
		b.observe(stated(0, 4_000), now + 10, false);
		b.settle(second as Departure, now + 10, false);
		b.observe(stated(0, 4_000), now + 11, false);
		b.settle(third as Departure, now + 11, false);
		expect(ask(b, now + 11)).toBe(4_000 - (now + 11));
		expect(typeof ask(b, 4_000)).toBe('object');
		// After the reset, one at a time until an answer states the new remaining.
		expect(ask(b, 4_000)).toBe(10);
	});

	test('refused with the count spent and holding no place: after the reset, those whose places freed go first', () => {
		const b = budget();
		const departure = ask(b, 0) as Departure;
		b.observe(stated(0, 1_000), 5, true);
		b.settle(departure, 5, true);
		const wait = ask(b, 1_000);
		expect(wait).toBeGreaterThan(0);
		expect(typeof ask(b, 1_000 + (wait as number))).toBe('object');
	});

	test('a stated limit lower than the credential wins; without headers the credential applies again', () => {
		const b = new RateBudget({ requestsPerMinute: 120, windowMs: WINDOW });
		expect(b.state.limit).toBe(20);
		const departure = ask(b, 0) as Departure;
		b.observe(stated(9, 10_000, 10), 5, false);
		b.settle(departure, 5, false);
		expect(b.state.limit).toBe(10);
		const next = ask(b, 10) as Departure;
		b.observe([], 15, false);
		b.settle(next, 15, false);
		expect(b.state.limit).toBe(20);
	});

	test('a stated limit above the credential: the surplus is not spent', () => {
		const b = budget();
		// The server allows 100 per window, 95 left; the credential says 10: 5 are ours.
		const now = warm(b, [97, 96, 95], 10_000, 100);
		const sent = [];
		for (let departed = ask(b, now); typeof departed === 'object'; departed = ask(b, now)) {
			sent.push(departed);
		}
		expect(sent).toHaveLength(5);
	});

	test.each(['ietf', 'x-ratelimit-delta', 'ratelimit'] as const)(
		'a token bucket with burst = limit stating %s: no 429, at 0.95 of the fastest time or better',
		(headers) => {
			const server = {
				limit: LIMIT,
				windowMs: WINDOW,
				algorithm: 'token-bucket',
				headers,
			} as const;
			const { acceptedAt, rateLimited } = drive(budget(), server, 40);
			expect(rateLimited).toBe(0);
			// 10 at once, then 1 a second: 30 s at the fastest.
			expect(30_000 / (acceptedAt[39] - acceptedAt[0])).toBeGreaterThanOrEqual(0.95);
		},
	);

	test.each([1, 5])(
		'a token bucket with burst %i, below its limit, stating its count: no 429, at 0.95 of the rate or better',
		(burst) => {
			const server = {
				limit: LIMIT,
				windowMs: WINDOW,
				algorithm: 'token-bucket',
				burst,
				headers: 'ietf',
			} as const;
			// Alone on the key: a count below the limit after an idle window is the bucket's burst,
			// not others spending (taken for others, this ran 30 times slower).
			const { acceptedAt, rateLimited } = drive(budget(), server, 30);
			expect(rateLimited).toBe(0);
			const fastest = ((30 - burst) * WINDOW) / LIMIT;
			expect(fastest / (acceptedAt[29] - acceptedAt[0])).toBeGreaterThanOrEqual(0.95);
		},
	);

	test('a credential twice the stated limit: no 429, at 0.95 of the stated rate or better', () => {
		const b = new RateBudget({ requestsPerMinute: 120, windowMs: WINDOW });
		const server = {
			limit: LIMIT,
			windowMs: WINDOW,
			algorithm: 'sliding-log',
			headers: 'ietf',
		} as const;
		const { acceptedAt, rateLimited } = drive(b, server, 35);
		expect(rateLimited).toBe(0);
		// 35 at 10 per window: 3 windows at the fastest.
		expect((3 * WINDOW) / (acceptedAt[34] - acceptedAt[0])).toBeGreaterThanOrEqual(0.95);
	});
});

describe('n8n processes sharing a key whose server states the count (queue mode, simulated)', () => {
	// 360 leads: 6 windows at the fastest with no place to spare, so a place left unused anywhere
	// costs a whole window (0.83 of fastest); 10 per 10 s: a place is a tenth of a window.
	test.each([
		['sliding-log', 60, 60_000, 120],
		['fixed-window', 60, 60_000, 120],
		['sliding-log', 10, 10_000, 20],
	] as const)(
		'three processes all busy on a %s at %i per window: no more than 2%% of requests refused, at 0.9 of the fastest time or better',
		(algorithm, limit, windowMs, each) => {
			const server = { algorithm, limit, windowMs, headers: 'ietf' } as const;
			let [rateLimited, accepted, ratio] = [0, 0, 0];
			for (const seed of [1, 2, 3, 4, 5]) {
				const results = simulate(
					server,
					[0, 1, 2].map(() => ({ leads: each })),
					seed,
				);
				rateLimited += results.reduce((total, r) => total + r.rateLimited.length, 0);
				accepted += results.reduce((total, r) => total + r.accepted.length, 0);
				const start = Math.min(...results.map((r) => r.firstSentAt));
				const end = Math.max(...results.map((r) => r.doneAt));
				ratio += (5 * windowMs) / (end - start) / 5;
			}
			expect(accepted).toBe(5 * 3 * each);
			// Each process claiming its share of what was left: 3.3% refused at 60 per window, 17%
			// at 10, at every window's end.
			expect(rateLimited / (rateLimited + accepted)).toBeLessThanOrEqual(0.02);
			// Every process holding back for the others' requests on the way: 0.86-0.87, a place
			// left unused in most runs.
			expect(ratio).toBeGreaterThanOrEqual(0.9);
		},
	);

	test('a token bucket: once the count runs out, the processes take turns instead of all sending into each refill', () => {
		// 60 per minute, burst 60: every reset after the first minute refills a single token.
		const server = {
			algorithm: 'token-bucket',
			limit: 60,
			windowMs: 60_000,
			burst: 60,
			headers: 'ietf',
		} as const;
		let [rateLimited, accepted, ratio] = [0, 0, 0];
		for (const seed of [1, 2, 3, 4, 5]) {
			const results = simulate(
				server,
				[0, 1, 2].map(() => ({ leads: 120 })),
				seed,
			);
			rateLimited += results.reduce((total, r) => total + r.rateLimited.length, 0);
			accepted += results.reduce((total, r) => total + r.accepted.length, 0);
			const start = Math.min(...results.map((r) => r.firstSentAt));
			const end = Math.max(...results.map((r) => r.doneAt));
			// 60 at once, then one a second: 300 s at the fastest.
			ratio += 300_000 / (end - start) / 5;
		}
		expect(accepted).toBe(5 * 360);
		// All three sending at each refill: half the requests refused. Keeping the freed places of
		// a count left to others: 2.8%.
		expect(rateLimited / (rateLimited + accepted)).toBeLessThanOrEqual(0.02);
		expect(ratio).toBeGreaterThanOrEqual(0.95);
	});
});
