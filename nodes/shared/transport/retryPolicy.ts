/**
 * The whole retry policy in one place (modelled on ky's `retry` option): from the outcome of
 * one attempt, `decideRetry` says whether the request is done, should wait and try again, or
 * has failed. API requests and recording downloads both ask it. Two separate budgets:
 * - 429 (rate limited): retried while the total waited on 429s stays within Max Rate-Limit Wait;
 *   it never spends Max Retries.
 * - transient failures (5xx, 408, resets, timeouts): at most Max Retries retries, each after the
 *   server's Retry-After (up to `maxServerErrorRetryAfterMs`) or an exponential backoff; Max
 *   Rate-Limit Wait plays no part.
 * The defaults here are the only copy: the node's option fields read them.
 */
export const RETRY_POLICY = {
	/** Retries for transient failures (5xx, resets, timeouts). 429 does not use this budget. */
	defaultMaxRetries: 5,
	/**
	 * The longest Retry-After honoured on a transient failure (503 for maintenance...). A server
	 * asking for more fails the item at once, naming the wait it asked for, instead of holding
	 * the workflow for an hour.
	 */
	maxServerErrorRetryAfterMs: 60_000,
	/** 429 is retried until its total wait per request exceeds the "Max Rate-Limit Wait" option. */
	rateLimitStatusCode: 429,
	/** A floor, so "Retry-After: 0" answered again and again cannot become a request storm. */
	minRateLimitWaitMs: 250,
	retryStatusCodes: [408, 500, 502, 503, 504],
	retryErrorCodes: [
		'ECONNRESET',
		'ECONNREFUSED',
		'ECONNABORTED',
		'ETIMEDOUT',
		'ESOCKETTIMEDOUT',
		'EPIPE',
		'EAI_AGAIN',
		'ENETUNREACH',
		'EHOSTUNREACH',
		'ERR_BAD_RESPONSE',
		// No code at all (a body cut off, an unexpected library error): worth another try.
		'UNKNOWN',
	],
	backoffBaseMs: 500,
	backoffLimitMs: 30_000,
	defaultMaxRateLimitWaitMs: 5 * 60_000,
	defaultTimeoutMs: 60_000,
} as const;

/** The item's limits, from the node's "Options". */
export interface RetryLimits {
	maxRetries: number;
	maxRateLimitWaitMs: number;
}

/** An HTTP answer, or a failure without one (`networkErrorCode`). */
export type AttemptOutcome =
	| { statusCode: number; headers: Record<string, unknown>; accept3xx?: boolean }
	| { networkErrorCode: string };

/** What one request has spent so far; `decideRetry` updates it. */
export interface RetryState {
	failures: number;
	rateLimitHits: number;
	rateLimitWaitedMs: number;
}

export type RetryDecision =
	| { action: 'done' }
	| { action: 'retry'; waitMs: number; rateLimited: boolean }
	/**
	 * `askedWaitMs`: the server asked for a wait the policy does not grant (a 429's beyond Max
	 * Rate-Limit Wait, a transient failure's beyond `maxServerErrorRetryAfterMs`).
	 */
	| { action: 'fail'; attempts: number; askedWaitMs?: number };

export const newRetryState = (): RetryState => ({
	failures: 0,
	rateLimitHits: 0,
	rateLimitWaitedMs: 0,
});

export function decideRetry(
	outcome: AttemptOutcome,
	state: RetryState,
	limits: RetryLimits,
	nowMs: number,
): RetryDecision {
	const retryTransient = (serverWaitMs?: number): RetryDecision => {
		state.failures++;
		if (state.failures > limits.maxRetries) return { action: 'fail', attempts: state.failures };
		if (serverWaitMs !== undefined && serverWaitMs > RETRY_POLICY.maxServerErrorRetryAfterMs) {
			return { action: 'fail', attempts: state.failures, askedWaitMs: serverWaitMs };
		}
		return {
			action: 'retry',
			waitMs: serverWaitMs ?? backoffDelayMs(state.failures),
			rateLimited: false,
		};
	};

	if ('networkErrorCode' in outcome) {
		if (isRetryableErrorCode(outcome.networkErrorCode)) return retryTransient();
		return { action: 'fail', attempts: state.failures + 1 };
	}
	const { statusCode, headers } = outcome;
	if (statusCode < 300 || (statusCode < 400 && outcome.accept3xx)) return { action: 'done' };
	const retryAfterMs = parseRetryAfter(headers['retry-after'], nowMs);
	if (statusCode === RETRY_POLICY.rateLimitStatusCode) {
		state.rateLimitHits++;
		const waitMs = Math.max(
			retryAfterMs ?? backoffDelayMs(state.rateLimitHits + 1),
			RETRY_POLICY.minRateLimitWaitMs,
		);
		if (state.rateLimitWaitedMs + waitMs > limits.maxRateLimitWaitMs) {
			return { action: 'fail', attempts: state.rateLimitHits, askedWaitMs: waitMs };
		}
		state.rateLimitWaitedMs += waitMs;
		return { action: 'retry', waitMs, rateLimited: true };
	}
	if (isRetryableStatus(statusCode)) return retryTransient(retryAfterMs);
	return { action: 'fail', attempts: state.failures + 1 };
}

/**
 * `Retry-After` as milliseconds to wait: delta-seconds or an HTTP-date.
 * Returns undefined when the header is missing or unreadable (the caller then backs off).
 */
export function parseRetryAfter(value: unknown, nowMs: number): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const trimmed = String(text).trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
	// Only accept something that looks like a date, so a garbage number-ish string is not read as one.
	if (!/[a-z]/i.test(trimmed)) return undefined;
	const at = Date.parse(trimmed);
	if (Number.isNaN(at)) return undefined;
	return Math.max(0, at - nowMs);
}

/** Exponential backoff with "equal jitter": half fixed, half random, so waits never collapse to 0. */
export function backoffDelayMs(attempt: number, random: () => number = Math.random): number {
	const ceiling = Math.min(
		RETRY_POLICY.backoffLimitMs,
		RETRY_POLICY.backoffBaseMs * 2 ** Math.max(0, attempt - 1),
	);
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export function isRetryableStatus(statusCode: number): boolean {
	return (RETRY_POLICY.retryStatusCodes as readonly number[]).includes(statusCode);
}

export function isRetryableErrorCode(code: string | undefined): boolean {
	return code !== undefined && (RETRY_POLICY.retryErrorCodes as readonly string[]).includes(code);
}
