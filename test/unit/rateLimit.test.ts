import { RateLimiter } from '../../devkit/emulator/rate-limit';
import type { RateLimitConfig } from '../../devkit/emulator/types';
import { RateBudget, budgetForKey, type Departure } from '../../nodes/shared/transport/rateLimit';
import {
	readRateLimitHeaders,
	type StatedWindow,
} from '../../nodes/shared/transport/rateLimitHeaders';

// One test per rule of rateLimit.ts's comment block, on a simulated clock: 10 requests per 10 s.
const WINDOW = 10_000;
const LIMIT = 10;
const budget = (requestsPerMinute = 60) => new RateBudget({ requestsPerMinute, windowMs: WINDOW });
const ask = (b: RateBudget, now: number) => b.departOrWait(now);
const left = (b: RateBudget, now: number) => ask(b, now) as Departure;

/** The first moment from `now` at which a request may leave, and its departure. */
function whenAllowed(b: RateBudget, now: number): [Departure, number] {
	let departure = ask(b, now);
	for (; typeof departure === 'number'; departure = ask(b, now)) now += departure;
	return [departure, now];
}

/**
 * Sends `count` requests one after another through the budget against the emulator's limiter,
 * counted there 2 ms after they leave and answered 3 ms later; a 429 pauses the key for its
 * Retry-After, as the transport does. Returns when each was accepted and how many 429s there were.
 */
function drive(b: RateBudget, config: RateLimitConfig, count: number, start = 0) {
	const clock = { now: start };
	// The same clock states epoch resets: tests of them start at an epoch time.
	const limiter = new RateLimiter(
		config,
		() => clock.now,
		() => clock.now,
	);
	const acceptedAt: number[] = [];
	let rateLimited = 0;
	while (acceptedAt.length < count) {
		const departure = ask(b, clock.now);
		if (typeof departure === 'number') {
			clock.now += departure;
			continue;
		}
		clock.now += 2; // on its way to the server
		const decision = limiter.take('key');
		clock.now += 3;
		const stated = readRateLimitHeaders(decision.headers, clock.now);
		b.settle(departure, clock.now, { rateLimited: !decision.ok, stated });
		if (decision.ok) acceptedAt.push(clock.now);
		else {
			rateLimited++;
			b.pauseUntil(clock.now + decision.retryAfterSeconds * 1000);
		}
	}
	return { acceptedAt, rateLimited, endedAt: clock.now };
}

const ok = { rateLimited: false, stated: [] };
const refused = { rateLimited: true, stated: [] };
const count = (remaining: number, resetAtMs: number, limit?: number): StatedWindow[] => [
	{ remaining, resetAtMs, limit, windowMs: WINDOW },
];

describe('rule 1: at most the limit in any window, each request counted until a window after its answer', () => {
	test('the whole window at once, then the next request a window after the first answer', () => {
		const b = budget();
		for (let i = 0; i < LIMIT; i++) b.settle(left(b, 5 * i), 5 * i + 5, ok);
		const wait = ask(b, 100) as number;
		expect(100 + wait).toBeGreaterThanOrEqual(5 + WINDOW);
		expect(100 + wait).toBeLessThanOrEqual(5 + WINDOW * 1.03);
	});

	test('an answer still on its way keeps its place, however long it takes', () => {
		const b = budget();
		for (let i = 0; i < LIMIT - 1; i++) b.settle(left(b, 5 * i), 5 * i + 5, ok);
		const slow = left(b, 100);
		expect(typeof ask(b, 5 * WINDOW)).toBe('number');
		b.settle(slow, 5 * WINDOW, ok);
		expect(typeof ask(b, 5 * WINDOW)).toBe('object');
	});

	test.each(['sliding-log', 'fixed-window'] as const)(
		'a %s server told its true limit: no 429, in the fastest time it allows',
		(algorithm) => {
			const run = drive(budget(), { limit: LIMIT, windowMs: WINDOW, algorithm }, 25);
			expect(run.rateLimited).toBe(0);
			expect(run.acceptedAt[24] - run.acceptedAt[0]).toBeLessThanOrEqual(2 * WINDOW * 1.05);
		},
	);
});

describe('rule 2: a bucket refilled at the limit; a burst goes one request at a time', () => {
	test('beyond even spacing, the next request waits for the answer of the one in flight', () => {
		const b = budget();
		const first = left(b, 0);
		expect(typeof ask(b, 0)).toBe('number');
		b.settle(first, 5, ok);
		expect(typeof ask(b, 5)).toBe('object');
	});

	test('a token bucket without burst: one 429, then even spacing at the full rate', () => {
		const b = budget();
		const server = { limit: LIMIT, windowMs: WINDOW, algorithm: 'token-bucket', burst: 1 } as const;
		const { acceptedAt, rateLimited } = drive(b, server, 25);
		expect(rateLimited).toBe(1);
		expect(b.state).toMatchObject({ share: 1, burst: 1 });
		expect((acceptedAt[24] - acceptedAt[4]) / 20).toBeLessThanOrEqual((WINDOW / LIMIT) * 1.05);
	});
});

describe('rule 3: a 429 pauses the key', () => {
	test('Retry-After holds back every request of the key', () => {
		const b = budget();
		b.pauseUntil(30_000);
		expect(ask(b, 1_000)).toBe(29_000);
	});
});

describe('rule 4: what a 429 teaches', () => {
	/** A budget that has learnt bursts are refused, sending at even spacing. */
	function evenlySpaced() {
		const b = budget();
		const server = { limit: LIMIT, windowMs: WINDOW, algorithm: 'token-bucket', burst: 1 } as const;
		return { b, now: drive(b, server, 3).endedAt };
	}

	test('a 429 during a burst: the burst becomes what the server accepted of it', () => {
		const b = budget();
		for (let i = 0; i < 3; i++) b.settle(left(b, 5 * i), 5 * i + 5, ok);
		b.settle(left(b, 15), 20, refused);
		expect(b.state).toMatchObject({ share: 1, burst: 3 });
	});

	test('a 429 during a burst, when the server states the count: the count shows the burst, so others share the key', () => {
		const b = budget();
		b.settle(left(b, 0), 5, { rateLimited: false, stated: count(5, WINDOW) });
		b.settle(left(b, 5), 10, { rateLimited: true, stated: count(0, WINDOW) });
		expect(b.state).toMatchObject({ share: 0.7, burst: LIMIT });
	});

	/** A burst refused after 3 from `start`; then, with `sharedAfter`, a 429 at even spacing. */
	function burstLesson(b: RateBudget, start: number, sharedAfter: boolean) {
		for (let i = 0; i < 3; i++) b.settle(left(b, start + 5 * i), start + 5 * i + 5, ok);
		b.settle(left(b, start + 15), start + 20, refused);
		const [next, sentAt] = whenAllowed(b, start + 20);
		b.settle(next, sentAt + 5, sharedAfter ? refused : ok);
		// Still busy half a window later; a window after the lesson, how many leave at once?
		const [busy, busyAt] = whenAllowed(b, sentAt + WINDOW / 2);
		b.settle(busy, busyAt + 5, ok);
		let now = sentAt + WINDOW * 1.05;
		let atOnce = 0;
		for (let d = ask(b, now); typeof d === 'object'; d = ask(b, now), atOnce++) {
			b.settle(d, (now += 5), ok);
		}
		return { atOnce, endedAt: now };
	}

	test('once a 429 at even spacing shows others share the key, the bucket holds share × limit, whatever a refused burst taught', () => {
		const b = budget();
		expect(burstLesson(b, 0, true).atOnce).toBeGreaterThanOrEqual(0.7 * LIMIT);
		expect(b.state).toMatchObject({ burst: 3 });
	});

	test('a key starting afresh forgets that others shared it: a refused burst teaches again', () => {
		const b = budget();
		const { endedAt } = burstLesson(b, 0, true);
		const afresh = endedAt + 2 * WINDOW;
		expect(burstLesson(b, afresh, false).atOnce).toBeLessThanOrEqual(4);
	});

	test('a 429 at even spacing multiplies the share by 0.7; successes bring it back to 1', () => {
		const { b, now } = evenlySpaced();
		b.settle(left(b, now + 1_100), now + 1_105, refused);
		expect(b.state.share).toBeCloseTo(0.7);
		const alone = drive(
			b,
			{ limit: LIMIT, windowMs: WINDOW, algorithm: 'token-bucket', burst: 1 },
			30,
			now + 2_000,
		);
		expect(alone.rateLimited).toBe(0);
		expect(b.state.share).toBe(1);
	});

	test("after the 429 the share follows CUBIC's curve: back to the share that drew it within a window", () => {
		const { b, now } = evenlySpaced();
		b.settle(left(b, now + 1_100), now + 1_105, refused);
		const shareAfter = (windows: number) => {
			const departure = { at: now + 1_200, tokensBefore: 1, answeredAt: Infinity };
			b.settle(departure, now + 1_105 + windows * WINDOW, ok);
			return b.state.share;
		};
		// W(t) = 0.4 (t - K)³ + 1 with K = ∛(1 × 0.3 ÷ 0.4) = 0.909 windows
		expect(shareAfter(0.25)).toBeCloseTo(0.886, 3);
		expect(shareAfter(0.5)).toBeCloseTo(0.973, 3);
		expect(shareAfter(1)).toBe(1);
	});

	test('a second 429 from a lower share: CUBIC climbs back to that share, W_max = 0.7', () => {
		const { b, now } = evenlySpaced();
		b.settle(left(b, now + 1_100), now + 1_105, refused);
		const departure = { at: now + 1_200, tokensBefore: 1, answeredAt: Infinity };
		b.settle(departure, now + 1_205, refused);
		expect(b.state.share).toBeCloseTo(0.49);
		// K = ∛(0.7 × 0.3 ÷ 0.4) = 0.807 windows after the second lesson
		b.settle(
			{ at: now + 1_300, tokensBefore: 1, answeredAt: Infinity },
			now + 1_205 + 0.807 * WINDOW,
			ok,
		);
		expect(b.state.share).toBeCloseTo(0.7, 3);
	});

	test('the 429 of a request sent before the last lesson teaches nothing more', () => {
		const { b, now } = evenlySpaced();
		const first = left(b, now + 1_100);
		const second = left(b, now + 2_200);
		b.settle(first, now + 2_300, refused);
		b.settle(second, now + 2_301, refused);
		expect(b.state.share).toBeCloseTo(0.7);
	});

	test('the share never drops below one request per window', () => {
		const { b, now } = evenlySpaced();
		for (let i = 1; i <= 20; i++)
			b.settle({ at: now + i, tokensBefore: 1, answeredAt: Infinity }, now + i, refused);
		expect(b.state.share).toBeCloseTo(1 / LIMIT);
	});

	test('a Retry-After pause of a whole window is waiting, not a window without requests', () => {
		const { b, now } = evenlySpaced();
		const refusedAt = now + 1_105;
		b.settle(left(b, now + 1_100), refusedAt, refused);
		b.pauseUntil(refusedAt + 2 * WINDOW);
		expect(ask(b, refusedAt)).toBe(2 * WINDOW);
		ask(b, refusedAt + 2 * WINDOW);
		expect(b.state).toMatchObject({ burst: 1, share: 0.7 });
	});

	test('after a window without requests the key starts afresh: the whole burst and share', () => {
		const { b, now } = evenlySpaced();
		b.settle(left(b, now + 1_100), now + 1_105, refused);
		expect(b.state).toMatchObject({ burst: 1, share: 0.7 });
		ask(b, now + 1_105 + WINDOW * 1.03);
		expect(b.state).toMatchObject({ burst: LIMIT, share: 1 });
	});
});

describe('rule 5: a count the server states', () => {
	test('no request leaves while the stated remaining, less those in flight, is zero, until the reset', () => {
		const b = budget(600);
		b.settle(left(b, 0), 5, { rateLimited: false, stated: count(2, 3_000) });
		const [first, second] = [left(b, 10), ask(b, 10)];
		expect(typeof first).toBe('object');
		// One left, one in flight: the next waits for the reset.
		expect(typeof second).toBe('number');
		b.settle(first, 15, { rateLimited: false, stated: count(0, 3_000) });
		expect(ask(b, 20)).toBe(3_000 - 20);
		expect(typeof ask(b, 3_000)).toBe('object');
	});

	test('an answer stating nothing: our own window again', () => {
		const b = budget();
		b.settle(left(b, 0), 5, { rateLimited: false, stated: count(5, WINDOW) });
		b.settle(left(b, 5), 10, ok);
		expect(b.state.statesCount).toBe(false);
	});

	test('a count that rises before its reset is an older answer, and is ignored', () => {
		const b = budget(600);
		// A burst refused at once: even spacing from then on, so two requests can be on the way.
		b.settle(left(b, 0), 5, ok);
		b.settle(left(b, 5), 10, refused);
		const [first, at] = whenAllowed(b, 10);
		const [second] = whenAllowed(b, at);
		b.settle(second, at + 200, { rateLimited: false, stated: count(0, 3_000) });
		b.settle(first, at + 201, { rateLimited: false, stated: count(1, 3_000) });
		expect(ask(b, at + 210)).toBe(3_000 - (at + 210));
	});

	test('the stated count replaces our own window: a token bucket with burst = limit is spent as it refills', () => {
		const server = {
			limit: LIMIT,
			windowMs: WINDOW,
			algorithm: 'token-bucket',
			headers: 'ietf',
		} as const;
		const { acceptedAt, rateLimited } = drive(budget(), server, 25);
		expect(rateLimited).toBe(0);
		// 10 at once, then one a second: 15 s, where our own window would take 20.
		expect(acceptedAt[24] - acceptedAt[0]).toBeLessThan(16_000);
	});

	test('a credential below the stated limit still applies; at or above it, the stated count alone', () => {
		// The server states 5 left whatever we send (others' places keep freeing).
		const spend = (statedLimit: number) => {
			const b = budget();
			const stated = count(5, WINDOW, statedLimit);
			for (let i = 0; i < LIMIT; i++) {
				b.settle(left(b, 5 * i), 5 * i + 5, { rateLimited: false, stated });
			}
			return ask(b, 100) as number;
		};
		// Our own window: the next place frees a window after the first answer.
		expect(spend(100)).toBeGreaterThan(WINDOW - 200);
		// The stated count alone (and the bucket's next refill).
		expect(spend(LIMIT)).toBeLessThan((WINDOW / LIMIT) * 1.05);
	});
});

describe('rule 6: a server rounding its resets down', () => {
	test('a reset due with places left is a sliding window freeing its next place: resets are read as stated', () => {
		const b = budget(600);
		b.settle(left(b, 0), 5, { rateLimited: false, stated: count(3, 5) });
		b.settle(left(b, 5), 10, { rateLimited: false, stated: count(0, 2_000) });
		expect(ask(b, 10)).toBe(2_000 - 10);
	});

	/** How late resets are read after each of five answers stating the count spent, its reset `behindMs` ago. */
	function lateness(behindMs: number): number[] {
		const b = budget(600);
		const late: number[] = [];
		let now = 0;
		for (let i = 0; i < 5; i++) {
			const [departure, at] = whenAllowed(b, now);
			now = at + 5;
			b.settle(departure, now, { rateLimited: false, stated: count(0, now - behindMs) });
			late.push(b.state.resetsLateByMs);
		}
		return late;
	}

	test('a spent count whose reset is already due: resets are read a second later', () => {
		expect(lateness(0)).toEqual([1_000, 1_000, 1_000, 1_000, 1_000]);
		const b = budget(600);
		b.settle(left(b, 0), 5, { rateLimited: false, stated: count(0, 5) });
		expect(ask(b, 5)).toBe(1_000);
	});

	test('resets due by more than that (a server clock 2.5 s behind ours): a second more each time, at most 3 s', () => {
		expect(lateness(2_500)).toEqual([1_000, 2_000, 3_000, 3_000, 3_000]);
	});
});

describe('rule 6: a reset rounded up to a whole second, of a count whose places are all ours', () => {
	// Epoch seconds, 0.3 s into a second: a reset named as the next whole second is up to 1 s late.
	const epoch = 1_800_000_000_300;
	const slidingLogStatingEpochResets: RateLimitConfig = {
		limit: LIMIT,
		windowMs: WINDOW,
		algorithm: 'sliding-log',
		headers: 'x-ratelimit-epoch',
	};

	/** A budget whose `ours` requests were answered at 5-14 ms, the last stating the count spent. */
	function spentBy(ours: number, resetAtMs: number) {
		const b = budget();
		for (let i = 0; i < ours - 1; i++) b.settle(left(b, i), i + 5, ok);
		b.settle(left(b, ours), 14, { rateLimited: false, stated: count(0, resetAtMs, LIMIT) });
		return b;
	}

	test('a count some of whose places are not ours (another client): the stated reset', () => {
		expect(ask(spentBy(LIMIT - 1, 10_900), 14)).toBe(10_900 - 14);
	});

	test('all ours: when the oldest frees (a window and 2% after its answer), never after the stated reset', () => {
		expect(ask(spentBy(LIMIT, 10_900), 14)).toBe(5 + 10_200 - 14);
		expect(ask(spentBy(LIMIT, 10_100), 14)).toBe(10_100 - 14);
	});

	test('all ours, the oldest freeing more than a second before the stated reset: a second before it', () => {
		expect(ask(spentBy(LIMIT, 12_000), 14)).toBe(11_000 - 14);
	});

	test.each([60, 120])(
		'a sliding log, credential at %i a minute: the next window starts when rule 1 at the stated limit frees a place',
		(requestsPerMinute) => {
			const run = drive(budget(requestsPerMinute), slidingLogStatingEpochResets, 3 * LIMIT, epoch);
			expect(run.rateLimited).toBe(0);
			// Two windows after the first, plus rule 1's 2% and the answers: not the stated second.
			expect(run.acceptedAt[2 * LIMIT] - run.acceptedAt[0]).toBeLessThan(2 * WINDOW * 1.02 + 100);
		},
	);
});

test('0 requests per minute turns pacing off', () => {
	const b = new RateBudget({ requestsPerMinute: 0 });
	expect(Array.from({ length: 100 }, () => typeof ask(b, 1_000))).not.toContain('number');
});

test('one budget per key, shared by every caller; other keys are independent', () => {
	const key = `pf_live_${'k'.repeat(43)}`;
	const limit = { requestsPerMinute: 60 };
	expect(budgetForKey(key, limit)).toBe(budgetForKey(key, limit));
	expect(budgetForKey(`pf_live_${'j'.repeat(43)}`, limit)).not.toBe(budgetForKey(key, limit));
});
