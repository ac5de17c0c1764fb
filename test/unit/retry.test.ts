import {
	backoffDelayMs,
	decideRetry,
	newRetryState,
	isRetryableErrorCode,
	isRetryableStatus,
	parseRetryAfter,
} from '../../nodes/shared/transport/retry';

describe('parseRetryAfter', () => {
	const now = Date.parse('2026-11-22T10:00:00Z');
	test.each([
		['120', 120_000],
		['0', 0],
		['1.5', 1500],
		[' 7 ', 7000],
		['Sun, 22 Nov 2026 10:00:30 GMT', 30_000],
		['Sun, 22 Nov 2026 09:59:00 GMT', 0],
	])('%s -> %i ms', (value, expected) => {
		expect(parseRetryAfter(value, now)).toBe(expected);
	});
	test.each([undefined, '', 'soon', '-5', '12abc', '1e3'])('%s is unreadable', (value) => {
		expect(parseRetryAfter(value, now)).toBeUndefined();
	});
});

describe('backoff', () => {
	test('grows exponentially with jitter and is capped', () => {
		expect(backoffDelayMs(1, () => 0)).toBe(250);
		expect(backoffDelayMs(1, () => 1)).toBe(500);
		expect(backoffDelayMs(3, () => 1)).toBe(2000);
		expect(backoffDelayMs(20, () => 1)).toBe(30_000);
	});
	test('retries transient answers only', () => {
		expect([503, 502, 504, 500, 408].every(isRetryableStatus)).toBe(true);
		expect([400, 401, 403, 404, 422, 429].some(isRetryableStatus)).toBe(false);
		expect(isRetryableErrorCode('ECONNRESET')).toBe(true);
		expect(isRetryableErrorCode('ENOTFOUND')).toBe(false);
	});
});

describe('decideRetry', () => {
	const limits = { maxRetries: 2, maxRateLimitWaitMs: 10_000 };
	const now = Date.parse('2026-11-22T10:00:00Z');
	const answer = (statusCode: number, headers: Record<string, unknown> = {}) => ({
		statusCode,
		headers,
	});

	test('2xx is done; another status only when the caller accepts it as an answer', () => {
		expect(decideRetry(answer(201), newRetryState(), limits, now)).toEqual({ action: 'done' });
		expect(decideRetry({ ...answer(302), accepted: true }, newRetryState(), limits, now)).toEqual({
			action: 'done',
		});
		for (const status of [300, 302]) {
			const failed = { action: 'fail', attempts: 1 };
			expect(decideRetry(answer(status), newRetryState(), limits, now)).toEqual(failed);
		}
	});

	test('transient failures are retried up to Max Retries, then fail with the attempts made', () => {
		const state = newRetryState();
		for (const outcome of [answer(503), { networkErrorCode: 'ECONNRESET' }]) {
			expect(decideRetry(outcome, state, limits, now)).toMatchObject({
				action: 'retry',
				rateLimited: false,
			});
		}
		expect(decideRetry(answer(503), state, limits, now)).toEqual({ action: 'fail', attempts: 3 });
	});

	test('a 503 with Retry-After waits as told; permanent failures are not retried', () => {
		expect(decideRetry(answer(503, { 'retry-after': '4' }), newRetryState(), limits, now)).toEqual({
			action: 'retry',
			waitMs: 4000,
			rateLimited: false,
		});
		expect(decideRetry(answer(404), newRetryState(), limits, now)).toEqual({
			action: 'fail',
			attempts: 1,
		});
		expect(decideRetry({ networkErrorCode: 'ENOTFOUND' }, newRetryState(), limits, now)).toEqual({
			action: 'fail',
			attempts: 1,
		});
	});

	test('429 waits as told (at least 250 ms) without spending Max Retries, until Max Rate-Limit Wait', () => {
		const state = newRetryState();
		const date = new Date(now + 3000).toUTCString();
		expect(decideRetry(answer(429, { 'retry-after': date }), state, limits, now)).toEqual({
			action: 'retry',
			waitMs: 3000,
			rateLimited: true,
		});
		expect(decideRetry(answer(429, { 'retry-after': '0' }), state, limits, now)).toMatchObject({
			waitMs: 250,
		});
		for (let i = 0; i < 5; i++)
			decideRetry(answer(429, { 'retry-after': '1' }), state, limits, now);
		expect(state.failures).toBe(0);
		expect(decideRetry(answer(429, { 'retry-after': '5' }), state, limits, now)).toEqual({
			action: 'fail',
			attempts: 8,
			askedWaitMs: 5000,
			allowedWaitMs: 10_000,
			rateLimitWaitedMs: 8250,
		});
		expect(state.rateLimitWaitedMs).toBe(8250);
	});

	test('Max Rate-Limit Wait plays no part in transient failures: their waits are neither capped nor counted', () => {
		const noRateLimitWait = { maxRetries: 2, maxRateLimitWaitMs: 0 };
		const state = newRetryState();
		expect(decideRetry(answer(503, { 'retry-after': '30' }), state, noRateLimitWait, now)).toEqual({
			action: 'retry',
			waitMs: 30_000,
			rateLimited: false,
		});
		const backoff = decideRetry({ networkErrorCode: 'ECONNRESET' }, state, noRateLimitWait, now);
		expect(backoff).toMatchObject({ action: 'retry' });
		expect((backoff as { waitMs: number }).waitMs).toBeGreaterThanOrEqual(500);
		expect(state.rateLimitWaitedMs).toBe(0);
	});

	test("a transient failure's Retry-After beyond 60 s fails at once, with the wait it asked for", () => {
		const state = newRetryState();
		expect(decideRetry(answer(503, { 'retry-after': '60' }), state, limits, now)).toMatchObject({
			action: 'retry',
			waitMs: 60_000,
		});
		expect(decideRetry(answer(503, { 'retry-after': '3600' }), state, limits, now)).toEqual({
			action: 'fail',
			attempts: 2,
			askedWaitMs: 3_600_000,
			allowedWaitMs: 60_000,
		});
	});
});
