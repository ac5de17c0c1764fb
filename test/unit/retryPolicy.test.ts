import {
	backoffDelayMs,
	isRetryableErrorCode,
	isRetryableStatus,
	parseRetryAfter,
} from '../../nodes/shared/transport/retryPolicy';

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
