import { sleep } from 'n8n-workflow';

import type { RequestContext } from '../context';
import type { GaveUp } from '../errors';
import { operationError } from '../errors';

/**
 * What happens after an answer, in one place (modelled on ky's `retry` option): `decideRetry`
 * says from the outcome of one attempt whether the request is done, should wait and try again,
 * or has failed, and `retrying` applies it. API requests and recording downloads both run
 * through it. Two separate budgets:
 * - 429 (rate limited): retried while the total waited on 429s stays within Max Rate-Limit Wait;
 *   it never spends Max Retries. Its wait holds every request on the key, not only this one.
 * - transient failures (5xx, 408, resets, timeouts): at most Max Retries retries, each after the
 *   server's Retry-After (up to `maxServerErrorRetryAfterMs`) or an exponential backoff; Max
 *   Rate-Limit Wait plays no part.
 * A request that gives up hands the errors (errors/) what was decided (`GaveUp`): they word it.
 * The limits are the user's: the Options every operation offers (Max Rate-Limit Wait, Max
 * Retries, Timeout) are declared and read in `../options.ts`; their defaults are here, the
 * only copy.
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
	/**
	 * When set (epoch ms), no wait for the rate limit, a 429's or a turn on the key, reaches past
	 * it: the request fails with a 429 instead. A trigger's check sets it to keep inside the time
	 * n8n's durable scheduler gives a poll.
	 */
	waitsEndBy?: number;
}

/** Per-request limits, set from the node's "Options". */
export interface RequestPolicy extends RetryLimits {
	timeoutMs: number;
}

export const DEFAULT_REQUEST_POLICY: RequestPolicy = {
	timeoutMs: RETRY_POLICY.defaultTimeoutMs,
	maxRetries: RETRY_POLICY.defaultMaxRetries,
	maxRateLimitWaitMs: RETRY_POLICY.defaultMaxRateLimitWaitMs,
};

/**
 * An HTTP answer, or a failure without one (`networkErrorCode`). `accepted`: the caller reads
 * this status as an answer (a redirect to a recording, a recording's 404), not as a failure.
 */
export type AttemptOutcome =
	| { statusCode: number; headers: Record<string, unknown>; accepted?: boolean }
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
	| ({ action: 'fail' } & GaveUp);

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
		const allowedWaitMs = RETRY_POLICY.maxServerErrorRetryAfterMs;
		if (serverWaitMs !== undefined && serverWaitMs > allowedWaitMs) {
			return { action: 'fail', attempts: state.failures, askedWaitMs: serverWaitMs, allowedWaitMs };
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
	if (statusCode < 300 || outcome.accepted) return { action: 'done' };
	const retryAfterMs = parseRetryAfter(headers['retry-after'], nowMs);
	if (statusCode === RETRY_POLICY.rateLimitStatusCode) {
		state.rateLimitHits++;
		const waitMs = Math.max(
			retryAfterMs ?? backoffDelayMs(state.rateLimitHits + 1),
			RETRY_POLICY.minRateLimitWaitMs,
		);
		const pastEnd = nowMs + waitMs > (limits.waitsEndBy ?? Infinity);
		if (pastEnd || state.rateLimitWaitedMs + waitMs > limits.maxRateLimitWaitMs) {
			return {
				action: 'fail',
				attempts: state.rateLimitHits,
				askedWaitMs: waitMs,
				allowedWaitMs: limits.maxRateLimitWaitMs,
				rateLimitWaitedMs: state.rateLimitWaitedMs,
			};
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

/** Waits, in short steps so that a cancelled execution stops waiting promptly. */
export async function pause(this: RequestContext, ms: number): Promise<void> {
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const until = Date.now() + ms;
	for (let left = ms; left > 0; left = until - Date.now()) {
		if (signal?.aborted) throw operationError(this.getNode(), 'The execution was cancelled');
		await sleep(Math.min(left, 1000));
	}
}

/**
 * Runs `attempt` until `decideRetry` says done or fail, and applies each decision: a 429's wait
 * goes to `holdKey` (the key's budget, which holds every request on the key until then), any
 * other wait holds this request only. `attempt` is told how much of Max Rate-Limit Wait is left.
 */
export async function retrying<T extends AttemptOutcome>(
	context: RequestContext,
	attempt: (rateLimitWaitLeftMs: number) => Promise<T>,
	limits: RetryLimits,
	holdKey?: (untilMs: number) => void,
): Promise<{ outcome: T; gaveUp?: GaveUp }> {
	const state = newRetryState();
	for (;;) {
		const outcome = await attempt(limits.maxRateLimitWaitMs - state.rateLimitWaitedMs);
		const decision = decideRetry(outcome, state, limits, Date.now());
		if (decision.action === 'done') return { outcome };
		if (decision.action === 'fail') return { outcome, gaveUp: decision };
		if (decision.rateLimited && holdKey) holdKey(Date.now() + decision.waitMs);
		else await pause.call(context, decision.waitMs);
	}
}
