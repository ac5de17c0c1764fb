/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Per-key rate limiters. Three algorithms, because a client that paces itself correctly against
 * one of them can still be rejected by another (issue 4): the node must be safe on all three.
 *
 * Each limiter answers "how many ms until this key may send again" (0 = accepted now). Only
 * accepted requests consume budget; rejected ones are not counted. Time comes from a monotonic
 * clock so that wall-clock jumps cannot open or close windows.
 */
import { performance } from 'perf_hooks';
import {
	RATE_LIMIT_HEADER_STYLES,
	RESET_ROUNDINGS,
	RateLimitAlgorithm,
	RateLimitConfig,
	RateLimitHeaderStyle,
	ResetRounding,
} from './types';

export const DEFAULT_RATE_LIMIT: RateLimitConfig = {
	limit: 60,
	windowMs: 60_000,
	algorithm: 'sliding-log',
};

interface Limiter {
	/** Accepts (returns 0) or returns the ms until a slot frees. */
	take(key: string, now: number): number;
	/** What the key has left, and the ms until that next goes up (for the headers). */
	state(key: string, now: number): { remaining: number; resetMs: number };
}

/** No more than `limit` accepted requests in any interval of `windowMs`. */
class SlidingLog implements Limiter {
	private readonly logs = new Map<string, number[]>();

	constructor(private readonly cfg: RateLimitConfig) {}

	take(key: string, now: number): number {
		let log = this.logs.get(key);
		if (!log) this.logs.set(key, (log = []));
		// An entry stops counting once a whole window has passed since it was accepted.
		let expired = 0;
		while (expired < log.length && now - log[expired] >= this.cfg.windowMs) expired++;
		if (expired > 0) log.splice(0, expired);
		if (log.length < this.cfg.limit) {
			log.push(now);
			return 0;
		}
		return log[0] + this.cfg.windowMs - now;
	}

	state(key: string, now: number): { remaining: number; resetMs: number } {
		const log = (this.logs.get(key) ?? []).filter((at) => now - at < this.cfg.windowMs);
		const resetMs = log.length === 0 ? this.cfg.windowMs : log[0] + this.cfg.windowMs - now;
		return { remaining: this.cfg.limit - log.length, resetMs };
	}
}

/** `limit` requests per window; windows are aligned to the limiter's creation time. */
class FixedWindow implements Limiter {
	private readonly counts = new Map<string, { window: number; count: number }>();

	constructor(
		private readonly cfg: RateLimitConfig,
		private readonly origin: number,
	) {}

	take(key: string, now: number): number {
		const window = Math.floor((now - this.origin) / this.cfg.windowMs);
		let state = this.counts.get(key);
		if (!state || state.window !== window) this.counts.set(key, (state = { window, count: 0 }));
		if (state.count < this.cfg.limit) {
			state.count++;
			return 0;
		}
		return this.origin + (window + 1) * this.cfg.windowMs - now;
	}

	state(key: string, now: number): { remaining: number; resetMs: number } {
		const window = Math.floor((now - this.origin) / this.cfg.windowMs);
		const state = this.counts.get(key);
		const count = state && state.window === window ? state.count : 0;
		return {
			remaining: this.cfg.limit - count,
			resetMs: this.origin + (window + 1) * this.cfg.windowMs - now,
		};
	}
}

/** Bucket of `burst` tokens (starts full), refilled continuously at limit/windowMs per ms. */
class TokenBucket implements Limiter {
	private readonly buckets = new Map<string, { tokens: number; at: number }>();
	private readonly capacity: number;
	private readonly perMs: number;

	constructor(cfg: RateLimitConfig) {
		this.capacity = cfg.burst ?? cfg.limit;
		this.perMs = cfg.limit / cfg.windowMs;
	}

	take(key: string, now: number): number {
		let bucket = this.buckets.get(key);
		if (!bucket) this.buckets.set(key, (bucket = { tokens: this.capacity, at: now }));
		bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * this.perMs);
		bucket.at = now;
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return 0;
		}
		return (1 - bucket.tokens) / this.perMs;
	}

	state(key: string, now: number): { remaining: number; resetMs: number } {
		const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
		const tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * this.perMs);
		const remaining = Math.floor(tokens);
		const resetMs = remaining >= this.capacity ? 0 : (remaining + 1 - tokens) / this.perMs;
		return { remaining, resetMs };
	}
}

const ALGORITHMS: RateLimitAlgorithm[] = ['sliding-log', 'fixed-window', 'token-bucket'];

/** Throws a readable error for a config the limiters cannot honour. */
export function validateRateLimit(cfg: unknown): RateLimitConfig | false {
	if (cfg === false) return false;
	const c = cfg as Partial<RateLimitConfig> | null;
	const positiveInt = (v: unknown): boolean => Number.isInteger(v) && (v as number) > 0;
	if (!c || typeof c !== 'object') throw new Error('rate limit must be an object or false');
	if (!positiveInt(c.limit)) throw new Error('rate limit: limit must be a positive integer');
	if (!positiveInt(c.windowMs)) throw new Error('rate limit: windowMs must be a positive integer');
	if (c.algorithm !== undefined && !ALGORITHMS.includes(c.algorithm)) {
		throw new Error(`rate limit: algorithm must be one of ${ALGORITHMS.join(', ')}`);
	}
	if (c.burst !== undefined && !positiveInt(c.burst)) {
		throw new Error('rate limit: burst must be a positive integer');
	}
	if (c.headers !== undefined && !RATE_LIMIT_HEADER_STYLES.includes(c.headers)) {
		throw new Error(`rate limit: headers must be one of ${RATE_LIMIT_HEADER_STYLES.join(', ')}`);
	}
	if (c.resetRounding !== undefined && !RESET_ROUNDINGS.includes(c.resetRounding)) {
		throw new Error(`rate limit: resetRounding must be one of ${RESET_ROUNDINGS.join(', ')}`);
	}
	return {
		limit: c.limit as number,
		windowMs: c.windowMs as number,
		algorithm: c.algorithm ?? 'sliding-log',
		...(c.burst !== undefined ? { burst: c.burst } : {}),
		...(c.headers !== undefined ? { headers: c.headers } : {}),
		...(c.resetRounding !== undefined ? { resetRounding: c.resetRounding } : {}),
	};
}

/** The key's budget after a decision, in the configured header family (none: {}). */
export function rateLimitHeaders(
	style: RateLimitHeaderStyle | undefined,
	cfg: { limit: number; windowMs: number; resetRounding?: ResetRounding },
	state: { remaining: number; resetMs: number },
	epochNowMs: number = Date.now(),
): Record<string, string> {
	const round = { up: Math.ceil, down: Math.floor, nearest: Math.round }[cfg.resetRounding ?? 'up'];
	const resetSeconds = Math.max(0, round(state.resetMs / 1000));
	const limit = String(cfg.limit);
	const remaining = String(Math.max(0, state.remaining));
	switch (style) {
		case 'x-ratelimit-delta':
		case 'x-ratelimit-epoch':
			return {
				'X-RateLimit-Limit': limit,
				'X-RateLimit-Remaining': remaining,
				'X-RateLimit-Reset': String(
					style === 'x-ratelimit-delta' ? resetSeconds : round((epochNowMs + state.resetMs) / 1000),
				),
			};
		case 'ratelimit':
			return {
				'RateLimit-Limit': limit,
				'RateLimit-Remaining': remaining,
				'RateLimit-Reset': String(resetSeconds),
			};
		case 'ietf':
			return {
				'RateLimit-Policy': `"default";q=${limit};w=${Math.round(cfg.windowMs / 1000)}`,
				RateLimit: `"default";r=${remaining};t=${resetSeconds}`,
			};
		default:
			return {};
	}
}

export type RateDecision = ({ ok: true } | { ok: false; retryAfterSeconds: number }) & {
	/** The configured rate-limit headers for this answer ({} when none are configured). */
	headers: Record<string, string>;
};

export class RateLimiter {
	private limiter: Limiter | undefined;
	private cfg: RateLimitConfig | false = false;

	/**
	 * `clock`: ms on a monotonic clock; a benchmark may pass a simulated one, and with it
	 * `epochClock`, the wall clock an epoch Reset is stated in.
	 */
	constructor(
		cfg: RateLimitConfig | false,
		private readonly clock: () => number = now,
		private readonly epochClock: () => number = Date.now,
	) {
		this.configure(cfg);
	}

	get config(): RateLimitConfig | false {
		return this.cfg;
	}

	/** Replaces the configuration and forgets every key's history. */
	configure(cfg: RateLimitConfig | false): void {
		this.cfg = validateRateLimit(cfg);
		this.reset();
	}

	reset(): void {
		const cfg = this.cfg;
		if (cfg === false) this.limiter = undefined;
		else if (cfg.algorithm === 'fixed-window') this.limiter = new FixedWindow(cfg, this.clock());
		else if (cfg.algorithm === 'token-bucket') this.limiter = new TokenBucket(cfg);
		else this.limiter = new SlidingLog(cfg);
	}

	take(key: string): RateDecision {
		if (!this.limiter || this.cfg === false) return { ok: true, headers: {} };
		const now = this.clock();
		const waitMs = this.limiter.take(key, now);
		const state = this.limiter.state(key, now);
		const headers = rateLimitHeaders(this.cfg.headers, this.cfg, state, this.epochClock());
		if (waitMs <= 0) return { ok: true, headers };
		// Retry-After is whole seconds; round up so that a client honouring it is never early.
		return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), headers };
	}
}

function now(): number {
	return performance.now();
}
