/**
 * What one rate-limit run achieved, computed from the emulator's request log (arrival times
 * and answers), so it is the server's view, not the client's.
 */
import type { RecordedRequest } from '../devkit/emulator';

export interface Limit {
	requests: number;
	windowMs: number;
}

export interface RateOutcome {
	/** POST /v1/leads requests the client(s) under test sent. */
	sent: number;
	/** 429 answers to those requests. */
	rateLimited: number;
	/** Most 429 answers to the client(s) within any one window-long interval. */
	max429PerWindow: number;
	/** Steady rate of accepted requests on the key (any client) ÷ the allowed rate. */
	rateRatio: number;
	/** First lead request to last accepted one ÷ the fastest the server allows. */
	timeRatio: number;
	/** Rate of accepted lead requests after the first 429 ÷ the allowed rate (NaN: no 429). */
	rateAfter429: number;
}

/**
 * The steady rate ÷ the allowed rate. Steady rate: accepted requests per second over the whole
 * run, or after the server's initial allowance (a fresh window's R requests, or a token
 * bucket's burst) if that is lower. The plain (n - 1) / (last - first) alone credits a client
 * that bursts the allowance at once with a free window (it reads 1.9 for batching on a short
 * run); the part after the allowance alone would hide a pause early in the run.
 * NaN when nothing was accepted beyond the allowance.
 */
export function steadyRateRatio(acceptedAt: number[], allowance: number, limit: Limit): number {
	const times = [...acceptedAt].sort((a, b) => a - b);
	const n = times.length;
	if (n <= allowance || n < 2) return Number.NaN;
	const whole = (n - 1) / (times[n - 1] - times[0]);
	const afterAllowance = (n - allowance) / (times[n - 1] - times[allowance - 1]);
	return Math.min(whole, afterAllowance) * (limit.windowMs / limit.requests);
}

/** The largest number of timestamps inside any interval of `windowMs`. */
export function maxInAnyWindow(times: number[], windowMs: number): number {
	const sorted = [...times].sort((a, b) => a - b);
	let best = 0;
	let start = 0;
	for (let end = 0; end < sorted.length; end++) {
		while (sorted[end] - sorted[start] >= windowMs) start++;
		best = Math.max(best, end - start + 1);
	}
	return best;
}

export function rateOutcome(
	requests: RecordedRequest[],
	limit: Limit,
	allowance: number,
	fastestMs: number,
): RateOutcome {
	const leadRequests = requests.filter((r) => r.method === 'POST' && r.path === '/v1/leads');
	const limitedAt = leadRequests.filter((r) => r.status === 429).map((r) => r.at);
	const acceptedAt = requests
		.filter((r) => typeof r.status === 'number' && r.status >= 200 && r.status < 300)
		.map((r) => r.at);
	const leadsAcceptedAt = leadRequests
		.filter((r) => typeof r.status === 'number' && r.status >= 200 && r.status < 300)
		.map((r) => r.at);
	const after429 = leadsAcceptedAt.filter((at) => at > (limitedAt[0] ?? Infinity));
	return {
		sent: leadRequests.length,
		rateLimited: limitedAt.length,
		max429PerWindow: maxInAnyWindow(limitedAt, limit.windowMs),
		rateRatio: steadyRateRatio(acceptedAt, allowance, limit),
		timeRatio: (Math.max(...leadsAcceptedAt) - leadRequests[0]?.at) / fastestMs,
		rateAfter429:
			after429.length < 2
				? Number.NaN
				: ((after429.length - 1) / (after429[after429.length - 1] - after429[0])) *
					(limit.windowMs / limit.requests),
	};
}
