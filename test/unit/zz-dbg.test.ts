import { RateLimiter } from '../../devkit/emulator/rate-limit';
import { RateBudget } from '../../nodes/shared/transport/rateLimit';
import { readRateLimitHeaders } from '../../nodes/shared/transport/rateLimitHeaders';
test('dbg', () => {
	const b = new RateBudget({ requestsPerMinute: 60, windowMs: 10_000 });
	const E = 1_800_000_000_000;
	const clock = { now: E + 300 };
	const limiter = new RateLimiter({ limit: 10, windowMs: 10_000, algorithm: 'sliding-log', headers: 'x-ratelimit-epoch' }, () => clock.now, () => clock.now);
	const log: string[] = [];
	let acc = 0;
	while (acc < 22) {
		const d = b.departOrWait(clock.now);
		if (typeof d === 'number') { log.push(`  wait ${d} at ${clock.now - E}`); clock.now += d; continue; }
		clock.now += 2;
		const dec = limiter.take('key');
		clock.now += 3;
		b.settle(d, clock.now, { rateLimited: !dec.ok, stated: readRateLimitHeaders(dec.headers, clock.now) });
		log.push(`${clock.now - E} ${dec.ok} ${JSON.stringify(dec.headers)}`);
		if (dec.ok) acc++; else b.pauseUntil(clock.now + (dec as any).retryAfterSeconds * 1000);
	}
	console.log(log.join('\n'));
});
