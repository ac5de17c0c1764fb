/**
 * The rate-limit tests' kit: a budget at 10 requests per 10 s on a simulated clock, and the
 * emulator's limiter to drive it against, as the transport does (rateLimit.test.ts, rules 1-4;
 * rateLimitStated.test.ts, rules 5-6).
 */
import { RateLimiter } from '../../devkit/emulator/rate-limit';
import type { RateLimitConfig } from '../../devkit/emulator/types';
import { RateBudget, type Departure } from '../../nodes/shared/transport/rateLimit';
import {
	readRateLimitHeaders,
	type StatedWindow,
} from '../../nodes/shared/transport/rateLimitHeaders';

export const WINDOW = 10_000;
export const LIMIT = 10;
export const budget = (requestsPerMinute = 60) =>
	new RateBudget({ requestsPerMinute, windowMs: WINDOW });
export const ask = (b: RateBudget, now: number) => b.departOrWait(now);
export const left = (b: RateBudget, now: number) => ask(b, now) as Departure;

/** The first moment from `now` at which a request may leave, and its departure. */
export function whenAllowed(b: RateBudget, now: number): [Departure, number] {
	let departure = ask(b, now);
	for (; typeof departure === 'number'; departure = ask(b, now)) now += departure;
	return [departure, now];
}

/**
 * Sends `count` requests one after another through the budget against the emulator's limiter,
 * counted there 2 ms after they leave and answered 3 ms later; a 429 pauses the key for its
 * Retry-After, as the transport does. Returns when each was accepted and how many 429s there were.
 */
export function drive(b: RateBudget, config: RateLimitConfig, count: number, start = 0) {
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

export const ok = { rateLimited: false, stated: [] };
export const refused = { rateLimited: true, stated: [] };
export const count = (remaining: number, resetAtMs: number, limit?: number): StatedWindow[] => [
	{ remaining, resetAtMs, limit, windowMs: WINDOW },
];
