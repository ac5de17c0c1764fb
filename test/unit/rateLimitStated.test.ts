import type { RateLimitConfig } from '../../devkit/emulator/types';

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

// Rules 5 and 6 of rateLimit.ts's comment block: what the server states of the key's count.
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

	test('a request in flight spends one of the stated remaining, at even spacing too', () => {
		const b = budget(600);
		// A burst refused at once: even spacing from then on, so rule 2 holds nobody back.
		b.settle(left(b, 0), 5, ok);
		b.settle(left(b, 5), 10, refused);
		const [first, at] = whenAllowed(b, 10);
		b.settle(first, at + 5, { rateLimited: false, stated: count(1, 3_000) });
		whenAllowed(b, at + 5);
		// The one left is on its way: the next waits for the reset.
		expect(whenAllowed(b, at + 5)[1]).toBe(3_000);
	});

	test('an answer stating nothing: our own window again', () => {
		const b = budget(600);
		// A burst refused at once: even spacing from then on, so two requests can be on the way.
		b.settle(left(b, 0), 5, ok);
		b.settle(left(b, 5), 10, refused);
		const [first, at] = whenAllowed(b, 10);
		const [second, secondAt] = whenAllowed(b, at);
		b.settle(first, secondAt + 5, { rateLimited: false, stated: count(0, 3_000) });
		expect(ask(b, secondAt + 5)).toBe(3_000 - (secondAt + 5));
		b.settle(second, secondAt + 10, ok);
		expect(ask(b, secondAt + 10)).toBeLessThan(WINDOW / 100);
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
