import { rateLimitHeaders } from '../../devkit/emulator/rate-limit';
import { RATE_LIMIT_HEADER_STYLES } from '../../devkit/emulator/types';
import { readRateLimitHeaders } from '../../nodes/shared/transport/rateLimitHeaders';

const now = Date.parse('2026-11-25T10:00:00Z');

describe('readRateLimitHeaders', () => {
	test('X-RateLimit-* with Reset in seconds from now, names in any case', () => {
		expect(
			readRateLimitHeaders(
				{ 'X-RATELIMIT-LIMIT': '60', 'x-ratelimit-remaining': '12', 'X-RateLimit-Reset': '30' },
				now,
			),
		).toEqual([
			{
				remaining: 12,
				resetAtMs: now + 30_000,
				limit: 60,
				windowMs: undefined,
			},
		]);
	});

	test('X-RateLimit-Reset as epoch seconds or epoch ms is told from a delta', () => {
		const epochSeconds = String(now / 1000 + 45);
		expect(
			readRateLimitHeaders(
				{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epochSeconds },
				now,
			)[0],
		).toMatchObject({ resetAtMs: now + 45_000 });
		expect(
			readRateLimitHeaders(
				{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now + 5000) },
				now,
			)[0],
		).toEqual({ remaining: 0, resetAtMs: now + 5000 });
	});

	test('RateLimit-* (earlier IETF drafts): Reset in seconds, a window in the limit', () => {
		expect(
			readRateLimitHeaders(
				{ 'RateLimit-Limit': '10, 10;w=10', 'RateLimit-Remaining': '3', 'RateLimit-Reset': '4' },
				now,
			),
		).toEqual([{ remaining: 3, resetAtMs: now + 4000, limit: 10, windowMs: 10_000 }]);
	});

	test('RateLimit-Policy with RateLimit (current IETF draft): every policy, matched by name', () => {
		const windows = readRateLimitHeaders(
			{
				'RateLimit-Policy': '"burst";q=10;w=1, "daily";q=1000;w=86400',
				RateLimit: '"burst";r=9;t=1, "daily";r=2;t=3600',
			},
			now,
		);
		expect(windows).toEqual([
			{ remaining: 9, resetAtMs: now + 1000, limit: 10, windowMs: 1000 },
			{
				remaining: 2,
				resetAtMs: now + 3_600_000,
				limit: 1000,
				windowMs: 86_400_000,
			},
		]);
	});

	test("the draft's RateLimit dictionary: limit=, remaining=, reset=", () => {
		expect(readRateLimitHeaders({ RateLimit: 'limit=60, remaining=7, reset=20' }, now)).toEqual([
			{
				remaining: 7,
				resetAtMs: now + 20_000,
				limit: 60,
				windowMs: undefined,
			},
		]);
	});

	test('nothing stated, or nothing readable: no window', () => {
		expect(readRateLimitHeaders({ 'content-type': 'application/json' }, now)).toEqual([]);
		expect(readRateLimitHeaders({ 'x-ratelimit-remaining': 'many' }, now)).toEqual([]);
		expect(readRateLimitHeaders({ 'x-ratelimit-limit': '60' }, now)).toEqual([]);
	});

	test.each(RATE_LIMIT_HEADER_STYLES)('reads what the emulator sends as %s', (style) => {
		const headers = rateLimitHeaders(
			style,
			{ limit: 10, windowMs: 10_000 },
			{ remaining: 4, resetMs: 2500 },
			now,
		);
		expect(readRateLimitHeaders(headers, now)).toEqual([
			expect.objectContaining({ remaining: 4, resetAtMs: now + 3000, limit: 10 }),
		]);
	});
});
