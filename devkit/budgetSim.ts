/**
 * The rate budget (nodes/shared/transport/rateLimit.ts) against the emulator's own limiters, in
 * simulated time: real 60 s windows, whole minutes of traffic in milliseconds, and n8n
 * processes sharing a key (queue mode) without starting any. What it leaves out, the real-n8n
 * rows of section 1 measure: n8n's own scheduling and HTTP stack.
 *
 * Each simulated n8n process sends its leads 8 at a time, like the node, through its own
 * budget; every request takes 5-25 ms each way (or as `oneWayMs` says); a 429 pauses the key
 * for max(Retry-After, 250 ms), as the transport does, and the lead is sent again.
 */
import { RateLimiter } from './emulator/rate-limit';
import type { RateLimitAlgorithm, RateLimitHeaderStyle, ResetRounding } from './emulator/types';
import { RateBudget, type Departure } from '../nodes/shared/transport/rateLimit';
import { readRateLimitHeaders } from '../nodes/shared/transport/rateLimitHeaders';
import { RETRY_POLICY } from '../nodes/shared/transport/retryPolicy';

export interface SimServer {
	algorithm: RateLimitAlgorithm;
	/** Requests per window, the credential's budget too. */
	limit: number;
	windowMs: number;
	burst?: number;
	/** The header family stating the key's budget on each answer (none: no headers). */
	headers?: RateLimitHeaderStyle;
	/** How the stated Reset is rounded (default 'up'). */
	resetRounding?: ResetRounding;
	/** How far the server's clock, that an epoch Reset is stated on, is ahead of ours (ms). */
	clockAheadMs?: number;
	/**
	 * How long a request takes each way, at least and at most (ms; default 5-25). Over loopback,
	 * as in the real queue-mode bench, 2-6: a worker then takes a place every few ms.
	 */
	oneWayMs?: readonly [least: number, most: number];
}

export interface SimProcess {
	/** Leads to import, and when the process starts sending them (ms after the start). */
	leads: number;
	startAt?: number;
	/** Another client on the key: sends at this share of the budget, whatever the answers. */
	otherClientShare?: number;
	/** The credential's Requests per Minute, when not the server's rate. */
	requestsPerMinute?: number;
	/**
	 * A later run in the same n8n process as the entry at this index (it must come before): the
	 * run uses that process's budget, with all it learnt.
	 */
	sameProcessAs?: number;
}

export interface SimProcessResult {
	accepted: number[];
	rateLimited: number[];
	firstSentAt: number;
	doneAt: number;
	budget?: { share: number; burst: number };
}

const ITEMS_AT_ONCE = 8;

/** A seeded random source, so every run of the bench simulates the same jitter. */
function seeded(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
		return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
	};
}

/** A minimal discrete-event loop: callbacks run in time order. */
class Clock {
	now = 0;
	private events: Array<{ at: number; run: () => void }> = [];
	at(at: number, run: () => void): void {
		this.events.push({ at, run });
	}
	runUntilIdle(limitMs: number): void {
		while (this.events.length > 0) {
			let next = 0;
			for (let i = 1; i < this.events.length; i++) {
				if (this.events[i].at < this.events[next].at) next = i;
			}
			const [event] = this.events.splice(next, 1);
			this.now = Math.max(this.now, event.at);
			if (this.now > limitMs) throw new Error('simulation did not finish');
			event.run();
		}
	}
}

/** The wall clock when a simulation starts: a whole second and a bit, as any moment is. */
const EPOCH_AT_START = Date.UTC(2026, 0, 1) + 437;

export function simulate(server: SimServer, processes: SimProcess[], seed = 1): SimProcessResult[] {
	const clock = new Clock();
	const random = seeded(seed);
	const [least, most] = server.oneWayMs ?? [5, 25];
	const latency = () => least + random() * (most - least);
	const limiter = new RateLimiter(
		{
			limit: server.limit,
			windowMs: server.windowMs,
			algorithm: server.algorithm,
			burst: server.burst,
			headers: server.headers,
			resetRounding: server.resetRounding,
		},
		() => clock.now,
		() => EPOCH_AT_START + (server.clockAheadMs ?? 0) + clock.now,
	);
	// An epoch Reset is read against the wall clock, then put back on the simulated one.
	const epochAtStart = server.headers === 'x-ratelimit-epoch' ? EPOCH_AT_START : 0;
	const readHeaders = (headers: Record<string, string>) =>
		readRateLimitHeaders(headers, epochAtStart + clock.now).map((window) => ({
			...window,
			resetAtMs: window.resetAtMs - epochAtStart,
		}));
	const requestsPerMinute = (server.limit * 60_000) / server.windowMs;

	const send = (
		answer: (retryAfterMs: number | undefined, headers: Record<string, string>) => void,
	) => {
		clock.at(clock.now + latency(), () => {
			const decision = limiter.take('key');
			clock.at(clock.now + latency(), () =>
				answer(decision.ok ? undefined : decision.retryAfterSeconds * 1000, decision.headers),
			);
		});
	};

	const budgets: RateBudget[] = [];
	const results = processes.map((process, index) => {
		const result: SimProcessResult = {
			accepted: [],
			rateLimited: [],
			firstSentAt: NaN,
			doneAt: NaN,
		};
		const startAt = process.startAt ?? 0;
		if (process.otherClientShare !== undefined) {
			const everyMs = server.windowMs / (server.limit * process.otherClientShare);
			for (let i = 0; i < process.leads; i++) {
				clock.at(startAt + i * everyMs, () =>
					send((retryAfter) =>
						(retryAfter === undefined ? result.accepted : result.rateLimited).push(clock.now),
					),
				);
			}
			return result;
		}
		const budget =
			process.sameProcessAs === undefined
				? new RateBudget({
						requestsPerMinute: process.requestsPerMinute ?? requestsPerMinute,
						windowMs: server.windowMs,
					})
				: budgets[process.sameProcessAs];
		budgets[index] = budget;
		let waiting = process.leads;
		const attempt = () => {
			const departure = budget.departOrWait(clock.now);
			if (typeof departure === 'number') {
				clock.at(clock.now + departure, attempt);
				return;
			}
			if (Number.isNaN(result.firstSentAt)) result.firstSentAt = clock.now;
			send((retryAfterMs, headers) => answered(departure, retryAfterMs, headers));
		};
		const answered = (
			departure: Departure,
			retryAfterMs: number | undefined,
			headers: Record<string, string>,
		) => {
			const rateLimited = retryAfterMs !== undefined;
			budget.settle(departure, clock.now, { rateLimited, stated: readHeaders(headers) });
			if (retryAfterMs !== undefined) {
				result.rateLimited.push(clock.now);
				budget.pauseUntil(clock.now + Math.max(retryAfterMs, RETRY_POLICY.minRateLimitWaitMs));
				attempt();
				return;
			}
			result.accepted.push(clock.now);
			result.doneAt = clock.now;
			result.budget = budget.state;
			if (waiting > 0) {
				waiting--;
				attempt();
			}
		};
		for (let i = 0; i < Math.min(ITEMS_AT_ONCE, process.leads); i++) {
			waiting--;
			clock.at(startAt, attempt);
		}
		return result;
	});
	clock.runUntilIdle(24 * 3_600_000);
	return results;
}
