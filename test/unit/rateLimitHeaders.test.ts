import { rateLimitHeaders } from '../../devkit/emulator/rate-limit';
import { RATE_LIMIT_HEADER_STYLES } from '../../devkit/emulator/types';
import { readRateLimitHeaders } from '../../nodes/shared/transport/rateLimitHeaders';

const now = Date.parse('2026-11-25T10:00:00Z');
/** A window as read: `remaining` left, reset `inMs` from now. */
const read = (remaining: number, inMs: number, limit?: number, windowMs?: number) => ({
	remaining,
	resetAtMs: now + inMs,
	limit,
	windowMs,
});

describe('readRateLimitHeaders', () => {
	test.each([
		[
			'X-RateLimit-* with Reset in seconds from now, names in any case',
			{ 'X-RATELIMIT-LIMIT': '60', 'x-ratelimit-remaining': '12', 'X-RateLimit-Reset': '30' },
			[read(12, 30_000, 60)],
		],
		[
			'X-RateLimit-Reset as epoch seconds is told from a delta',
			{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 45) },
			[read(0, 45_000)],
		],
		[
			'X-RateLimit-Reset as epoch ms is told from a delta',
			{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now + 5000) },
			[{ remaining: 0, resetAtMs: now + 5000 }],
		],
		[
			'RateLimit-* (earlier IETF drafts): Reset in seconds, a window in the limit',
			{ 'RateLimit-Limit': '10, 10;w=10', 'RateLimit-Remaining': '3', 'RateLimit-Reset': '4' },
			[read(3, 4000, 10, 10_000)],
		],
		[
			'RateLimit-Policy with RateLimit (current IETF draft): every policy, matched by name',
			{
				'RateLimit-Policy': '"burst";q=10;w=1, "daily";q=1000;w=86400',
				RateLimit: '"burst";r=9;t=1, "daily";r=2;t=3600',
			},
			[read(9, 1000, 10, 1000), read(2, 3_600_000, 1000, 86_400_000)],
		],
		[
			"the draft's RateLimit dictionary: limit=, remaining=, reset=",
			{ RateLimit: 'limit=60, remaining=7, reset=20' },
			[read(7, 20_000, 60)],
		],
		['nothing stated: no window', { 'content-type': 'application/json' }, []],
		['nothing readable: no window', { 'x-ratelimit-remaining': 'many' }, []],
		['no count: no window', { 'x-ratelimit-limit': '60' }, []],
	])('%s', (_, headers, windows) => {
		expect(readRateLimitHeaders(headers, now)).toEqual(windows);
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
