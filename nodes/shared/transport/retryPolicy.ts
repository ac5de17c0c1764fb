/**
 * The whole retry policy in one place (modelled on ky's `retry` option): which answers are
 * retried, how many times, how long to back off, and how `Retry-After` is honoured.
 */
export const RETRY_POLICY = {
	/** Retries for transient failures (5xx, resets, timeouts). 429 does not use this budget. */
	defaultMaxRetries: 5,
	/** 429 is retried until its total wait per request exceeds the "Max Rate-Limit Wait" option. */
	rateLimitStatusCode: 429,
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
	],
	backoffBaseMs: 500,
	backoffLimitMs: 30_000,
	defaultMaxRateLimitWaitMs: 5 * 60_000,
	defaultTimeoutMs: 60_000,
} as const;

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
