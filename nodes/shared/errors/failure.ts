import type { Failure } from 'n8n-workflow';

/**
 * Why a request failed, declared on the error (n8n-workflow's `errors/failure`): n8n 2.x's poll
 * scheduler backs a failing trigger off by it (a revoked key is not polled every minute). n8n
 * 1.x's errors take no such option and ignore it.
 */
export function failureOf(
	statusCode: number | undefined,
	askedWaitMs?: number,
): Failure | undefined {
	const wait = askedWaitMs === undefined ? {} : { retryAfterMs: askedWaitMs };
	if (statusCode === 429) return { cause: 'rate-limited', ...wait };
	if (statusCode === 401) return { cause: 'credential-invalid' };
	if (statusCode === 403) return { cause: 'configuration-invalid' };
	// No answer at all (network), or a transient server failure.
	if (statusCode === undefined || statusCode === 408 || statusCode >= 500) {
		return { cause: 'temporarily-unavailable', ...wait };
	}
	return undefined;
}
