/**
 * What one rate-limit run achieved, computed from the emulator's request log (arrival times
 * and answers), so it is the server's view, not the client's.
 */
import type { RecordedRequest } from '../test/emulator';

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
	/** Accepted requests on the key (any client) per unit of budget time, ÷ the allowed rate. */
	rateRatio: number;
}

/**
 * Accepted requests ÷ the time their budget was held, ÷ the allowed rate. A window limit of
 * R per W holds each accepted request's budget for W after it, so n requests hold the key
 * from the first one until W after the R-th from last. The plain (n - 1) / (last - first)
 * would credit a client that bursts a whole window at once with an extra window (it reads
 * 1.3 for batching); this measure gives an evenly paced and a bursting client the same 1.0
 * when both use the whole budget.
 */
export function budgetRateRatio(acceptedAt: number[], limit: Limit): number {
	const times = [...acceptedAt].sort((a, b) => a - b);
	const n = times.length;
	if (n === 0) return 0;
	const heldMs = (n > limit.requests ? times[n - limit.requests] - times[0] : 0) + limit.windowMs;
	return (n * limit.windowMs) / (limit.requests * heldMs);
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

export function rateOutcome(requests: RecordedRequest[], limit: Limit): RateOutcome {
	const leadRequests = requests.filter((r) => r.method === 'POST' && r.path === '/v1/leads');
	const limitedAt = leadRequests.filter((r) => r.status === 429).map((r) => r.at);
	const acceptedAt = requests
		.filter((r) => typeof r.status === 'number' && r.status >= 200 && r.status < 300)
		.map((r) => r.at);
	return {
		sent: leadRequests.length,
		rateLimited: limitedAt.length,
		max429PerWindow: maxInAnyWindow(limitedAt, limit.windowMs),
		rateRatio: budgetRateRatio(acceptedAt, limit),
	};
}
