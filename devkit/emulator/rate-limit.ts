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
import { RATE_LIMIT_HEADER_STYLES, RateLimitConfig, RateLimitHeaderStyle } from './types';

type State = { remaining: number; resetMs: number };

interface Limiter {
	/** What the key has left, and the ms until that next goes up. */
	state(key: string, now: number): State;
	/** Counts one accepted request. */
	consume(key: string, now: number): void;
}

/** No more than `limit` accepted requests in any interval of `windowMs`. */
class SlidingLog implements Limiter {
	private readonly logs = new Map<string, number[]>();

	constructor(private readonly cfg: RateLimitConfig) {}

	/** The key's log; an entry stops counting once a whole window has passed since it was accepted. */
	private log(key: string, now: number): number[] {
		const log = (this.logs.get(key) ?? []).filter((at) => now - at < this.cfg.windowMs);
		this.logs.set(key, log);
		return log;
	}

	state(key: string, now: number): State {
		const log = this.log(key, now);
		const resetMs = log.length === 0 ? this.cfg.windowMs : log[0] + this.cfg.windowMs - now;
		return { remaining: this.cfg.limit - log.length, resetMs };
	}

	consume(key: string, now: number): void {
		this.log(key, now).push(now);
	}
}

/** `limit` requests per window; windows are aligned to the limiter's creation time. */
class FixedWindow implements Limiter {
	private readonly counts = new Map<string, { window: number; count: number }>();

	constructor(
		private readonly cfg: RateLimitConfig,
		private readonly origin: number,
	) {}

	private current(key: string, now: number): { window: number; count: number } {
		const window = Math.floor((now - this.origin) / this.cfg.windowMs);
		let state = this.counts.get(key);
		if (state?.window !== window) this.counts.set(key, (state = { window, count: 0 }));
		return state;
	}

	state(key: string, now: number): State {
		const { window, count } = this.current(key, now);
		return {
			remaining: this.cfg.limit - count,
			resetMs: this.origin + (window + 1) * this.cfg.windowMs - now,
		};
	}

	consume(key: string, now: number): void {
		this.current(key, now).count++;
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

	/** The key's bucket, refilled up to `now`. */
	private refill(key: string, now: number): { tokens: number; at: number } {
		const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
		bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * this.perMs);
		bucket.at = now;
		this.buckets.set(key, bucket);
		return bucket;
	}

	state(key: string, now: number): State {
		const { tokens } = this.refill(key, now);
		const remaining = Math.floor(tokens);
		return {
			remaining,
			resetMs: remaining >= this.capacity ? 0 : (remaining + 1 - tokens) / this.perMs,
		};
	}

	consume(key: string, now: number): void {
		this.refill(key, now).tokens -= 1;
	}
}

/** Throws a readable error for a config the limiters cannot honour. */
export function validateRateLimit(cfg: unknown): RateLimitConfig | false {
	if (cfg === false) return false;
	if (!cfg || typeof cfg !== 'object') throw new Error('rate limit must be an object or false');
	const c = cfg as Record<string, unknown>;
	const positiveInt = (v: unknown): boolean => Number.isInteger(v) && (v as number) > 0;
	const fail = (field: string, must: string): never => {
		throw new Error(`rate limit: ${field} must be ${must}`);
	};
	const oneOf = (field: string, allowed: readonly string[]): void => {
		if (c[field] !== undefined && !allowed.includes(c[field] as string))
			fail(field, `one of ${allowed.join(', ')}`);
	};
	if (!positiveInt(c.limit)) fail('limit', 'a positive integer');
	if (!positiveInt(c.windowMs)) fail('windowMs', 'a positive integer');
	if (c.burst !== undefined && !positiveInt(c.burst)) fail('burst', 'a positive integer');
	oneOf('algorithm', ['sliding-log', 'fixed-window', 'token-bucket']);
	oneOf('headers', RATE_LIMIT_HEADER_STYLES);
	oneOf('resetRounding', ['up', 'down', 'nearest']);
	const { limit, windowMs, algorithm = 'sliding-log', burst, headers, resetRounding } = c;
	return { limit, windowMs, algorithm, burst, headers, resetRounding } as RateLimitConfig;
}

/** The key's budget after a decision, in the configured header family (none: {}). */
export function rateLimitHeaders(
	style: RateLimitHeaderStyle | undefined,
	cfg: Pick<RateLimitConfig, 'limit' | 'windowMs' | 'resetRounding'>,
	state: { remaining: number; resetMs: number },
	epochNowMs: number = Date.now(),
): Record<string, string> {
	const round = { up: Math.ceil, down: Math.floor, nearest: Math.round }[cfg.resetRounding ?? 'up'];
	const resetSeconds = Math.max(0, round(state.resetMs / 1000));
	const limit = String(cfg.limit);
	const remaining = String(Math.max(0, state.remaining));
	if (style === 'ietf') {
		const policy = `"default";q=${limit};w=${Math.round(cfg.windowMs / 1000)}`;
		return { 'RateLimit-Policy': policy, RateLimit: `"default";r=${remaining};t=${resetSeconds}` };
	}
	if (style === undefined) return {};
	const prefix = style === 'ratelimit' ? 'RateLimit' : 'X-RateLimit';
	const epoch = style === 'x-ratelimit-epoch';
	const reset = epoch ? round((epochNowMs + state.resetMs) / 1000) : resetSeconds;
	return {
		[`${prefix}-Limit`]: limit,
		[`${prefix}-Remaining`]: remaining,
		[`${prefix}-Reset`]: String(reset),
	};
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
		private readonly clock: () => number = () => performance.now(),
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
		const before = this.limiter.state(key, now);
		const ok = before.remaining >= 1;
		if (ok) this.limiter.consume(key, now);
		const after = this.limiter.state(key, now);
		const headers = rateLimitHeaders(this.cfg.headers, this.cfg, after, this.epochClock());
		if (ok) return { ok, headers };
		// Retry-After is whole seconds; round up so that a client honouring it is never early.
		return { ok, retryAfterSeconds: Math.max(1, Math.ceil(before.resetMs / 1000)), headers };
	}
}
