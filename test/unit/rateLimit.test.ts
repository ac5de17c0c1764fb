import { RateBudget, budgetForKey } from '../../nodes/shared/transport/rateLimit';

import {
	LIMIT,
	WINDOW,
	ask,
	budget,
	count,
	drive,
	left,
	ok,
	refused,
	whenAllowed,
} from './rateBudgetKit';

// One test per rule of rateLimit.ts's comment block (rules 5 and 6: rateLimitStated.test.ts).
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

	test("the key's first refused burst: the burst becomes what the server accepted of it", () => {
		const b = budget();
		for (let i = 0; i < 3; i++) b.settle(left(b, 5 * i), 5 * i + 5, ok);
		b.settle(left(b, 15), 20, refused);
		expect(b.state).toMatchObject({ share: 1, burst: 3 });
	});

	test('a request leaving with 2 tokens is still part of the burst, and one sent as a lesson is learnt teaches nothing more', () => {
		const b = budget();
		for (let i = 0; i < 8; i++) b.settle(left(b, 0), 0, ok);
		const [ninth, tenth] = [left(b, 0), left(b, 0)];
		expect(ninth.tokensBefore).toBe(2);
		b.settle(ninth, 0, refused);
		b.settle(tenth, 0, refused);
		expect(b.state).toMatchObject({ share: 1, burst: 8 });
	});

	/** A key whose first refused burst taught burst = 5, two requests into a burst a window later. */
	function laterBurst() {
		const b = budget();
		for (let i = 0; i < 5; i++) b.settle(left(b, 5 * i), 5 * i + 5, ok);
		b.settle(left(b, 25), 30, refused);
		const now = 30 + WINDOW;
		for (let i = 0; i < 2; i++) b.settle(left(b, now + 5 * i), now + 5 * i + 5, ok);
		return { b, now: now + 10 };
	}

	test('a later refused burst costs only its pause: after it the burst goes on', () => {
		const { b, now } = laterBurst();
		b.settle(left(b, now), now + 5, refused);
		b.pauseUntil(now + 1_005);
		expect(ask(b, now + 1_005)).toMatchObject({ at: now + 1_005 });
		expect(b.state).toMatchObject({ share: 1, burst: 5 });
	});

	test('refused again within a window, a later burst teaches as the first: the bucket empties', () => {
		const { b, now } = laterBurst();
		b.settle(left(b, now), now + 5, refused);
		b.pauseUntil(now + 1_005);
		const [again, sentAt] = whenAllowed(b, now + 1_005);
		b.settle(again, sentAt + 5, refused);
		expect(b.state.burst).toBeLessThan(5);
		expect(ask(b, sentAt + 5 + (WINDOW / LIMIT) * 0.5)).toBeGreaterThan(0);
	});

	test('a 429 while a stated count holds the key teaches nothing: the count holds us until its reset', () => {
		const b = budget();
		b.settle(left(b, 0), 5, { rateLimited: false, stated: count(5, WINDOW) });
		b.settle(left(b, 5), 10, { rateLimited: true, stated: count(0, WINDOW) });
		expect(b.state).toMatchObject({ share: 1, burst: LIMIT });
		expect(ask(b, 10)).toBe(WINDOW - 10);
	});

	test('a 429 during a burst despite stated room: others share the key (or a limit goes unstated)', () => {
		const b = budget();
		b.settle(left(b, 0), 5, { rateLimited: false, stated: count(5, WINDOW) });
		b.settle(left(b, 5), 10, { rateLimited: true, stated: count(4, WINDOW) });
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

	test("as the share grows back the bucket grows with it: after a window's pause, a window's worth leaves", () => {
		const { b, now } = evenlySpaced();
		b.settle(left(b, now + 1_100), now + 1_105, refused);
		const back = now + 1_105 + WINDOW;
		b.pauseUntil(back);
		let atOnce = 0;
		for (let d = ask(b, back); typeof d === 'object'; d = ask(b, back), atOnce++) {
			b.settle(d, back, ok);
		}
		expect(atOnce).toBeGreaterThanOrEqual(LIMIT - 1);
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
