import { createHash } from 'crypto';

import type { StatedWindow } from './rateLimitHeaders';
import { POLL_MS, StatedCount, type RefillKind } from './statedCount';

/**
 * The request budget of one API key in this n8n process, shared by every execution using it.
 *
 * A request may leave when both hold (the intersection of what servers commonly enforce):
 * - window: fewer than `share × limit` of this process's requests in the last window. A
 *   request counts from when it left until a window after its answer came back, so network
 *   delay can never make two windows' worth arrive within one.
 * - bucket: a token is free in a client-side bucket refilled at `share × limit` per window,
 *   holding at most `burst` tokens. Requests beyond even spacing (a burst) go one at a time.
 * At first `share` is 1 and `burst` the whole limit: a window server told its true budget
 * accepts everything at once, in the fastest time it allows. A 429 says the server is stricter
 * (modelled on TCP's AIMD and AWS's adaptive retry mode): during a burst, `burst` drops to what
 * the server evidently accepted (until the key has been idle for a window); at even spacing,
 * `share` shrinks, and grows back slowly while requests succeed. So n8n processes sharing a key
 * (queue mode) settle on shares of it by themselves, and a lone busy one regains the whole
 * budget within a few windows.
 *
 * When the server states the key's budget in its answers, that is the truth, and it replaces
 * the window and bucket above: statedCount.ts.
 */
const BUDGET = {
	defaultWindowMs: 60_000,
	/** Added to the window, and to the spacing of a bucket: clock and scheduling jitter. */
	margin: 0.02,
	/** Multiplicative decrease of the share after a 429 at even spacing. */
	shrinkFactor: 0.8,
	/**
	 * Increase: per window's worth of successful requests, the share grows by this times the
	 * windows since the last decrease (+0.25 in the first window, 0.5 back in 2 windows).
	 */
	growthPerWindowSquared: 0.25,
	minShare: 0.05,
} as const;

export interface BudgetLimit {
	/** The credential's Requests per Minute; 0 turns pacing off. */
	requestsPerMinute: number;
	windowMs?: number;
}

/** One request that left; hand it back to `settle` with its answer. */
export interface Departure {
	at: number;
	/** Tokens in the bucket when it left: 2 or more means it was part of a burst. */
	tokensBefore: number;
	/** When its answer came back; until then it holds its place in the window. */
	answeredAt: number;
}

export class RateBudget {
	private limit = 0;
	private windowMs: number = BUDGET.defaultWindowMs;
	private share = 1;
	private burst = 0;
	private tokens = 0;
	private tokensAt = 0;
	private inFlight = 0;
	private recent: Departure[] = [];
	private pausedUntil = 0;
	private lastShrinkAt = -Infinity;
	/** The credential's limit per window, before a lower stated limit applies. */
	private credentialLimit = 0;
	/** What the server states of the key's budget, when it does. */
	private readonly count = new StatedCount();

	constructor(limit: BudgetLimit) {
		this.configure(limit);
		this.tokens = this.burst;
	}

	/** Follows changes of the credential: a new limit forgets the learnt burst, not the share. */
	configure({ requestsPerMinute, windowMs = BUDGET.defaultWindowMs }: BudgetLimit): void {
		this.credentialLimit = (requestsPerMinute * windowMs) / 60_000;
		this.count.setCredential(this.credentialLimit, windowMs);
		const limit = Math.min(this.credentialLimit, this.count.lowestLimit());
		if (limit !== this.limit || windowMs !== this.windowMs) {
			this.burst = limit;
			this.tokens = Math.min(this.tokens, limit);
		}
		this.limit = limit;
		this.windowMs = windowMs;
	}

	/**
	 * The longest a request waits for its turn while the key's count is merely in use: two of the
	 * credential's windows. A longer wait is a count the server states spent for a longer period
	 * (an hourly or daily quota).
	 */
	get turnWaitsAtMostMs(): number {
		return 2 * this.windowMs;
	}

	/** What this process currently allows itself, for reports and tests. */
	get state(): {
		share: number;
		burst: number;
		limit: number;
		sharedWith: number;
		refills: RefillKind;
	} {
		return {
			share: this.share,
			burst: this.burst,
			limit: this.limit,
			sharedWith: this.count.share(),
			refills: this.count.refills(),
		};
	}

	/**
	 * A departure if a request may leave now (it is counted at once), otherwise the ms to wait
	 * before asking again. Synchronous, so concurrent requests never take the same place.
	 * `pending`: how many requests this process still has to send on this key, this one
	 * included (pendingWork.ts; Infinity when unknown).
	 */
	departOrWait(now: number, pending = Infinity): Departure | number {
		if (now < this.pausedUntil) return this.pausedUntil - now;
		if (this.limit <= 0) return { at: now, tokensBefore: Infinity, answeredAt: now };
		const span = this.windowMs * (1 + BUDGET.margin);
		this.recent = this.recent.filter((d) => d.answeredAt === Infinity || d.answeredAt + span > now);
		// After a whole idle window every common server grants its full burst again.
		if (this.recent.length === 0) this.burst = this.limit;
		const rate = this.ratePerMs();
		this.tokens = Math.min(this.burst, this.tokens + (now - this.tokensAt) * rate);
		this.tokensAt = now;

		if (this.count.active) {
			const statedWait = this.count.wait(now, pending);
			if (statedWait > 0) return statedWait;
		} else {
			const windowWait = this.windowWait(now, span);
			if (windowWait > 0) return windowWait;
			if (this.tokens < 1) return Math.ceil((1 - this.tokens) / rate);
			// One at a time beyond even spacing: a server without burst then refuses only one.
			if (this.tokens >= 2 && this.inFlight > 0) return POLL_MS;
		}

		const departure = { at: now, tokensBefore: this.tokens, answeredAt: Infinity };
		this.count.departed(now);
		this.tokens -= 1;
		this.inFlight++;
		this.recent.push(departure);
		return departure;
	}

	/** Records the answer (or the network failure) of a departure. */
	settle(departure: Departure, now: number, rateLimited: boolean): void {
		if (this.limit <= 0 || departure.answeredAt !== Infinity) return;
		departure.answeredAt = now;
		this.inFlight--;
		this.count.settle(departure.at, now, rateLimited);
		// With stated windows the server's count decides, not what the 429 would teach.
		if (this.count.active) return;
		const perWindow = Math.max(1, this.share * this.limit);
		if (!rateLimited) {
			// Slowly near the share that last drew a 429, faster the longer none comes (like
			// TCP CUBIC): few 429s while sharing, the whole budget soon when alone.
			const windowsSinceShrink = (now - this.lastShrinkAt) / this.windowMs;
			const growth = BUDGET.growthPerWindowSquared * windowsSinceShrink;
			this.share = Math.min(1, this.share + growth / perWindow);
			return;
		}
		// Refused, so not counted by the server: it does not hold a place in the window either.
		this.recent = this.recent.filter((d) => d !== departure);
		// Requests that left before the last lesson was learnt teach nothing new.
		if (departure.at <= this.lastShrinkAt) return;
		this.lastShrinkAt = now;
		if (departure.tokensBefore >= 2) {
			// The server accepted the burst up to this request and no further.
			this.burst = Math.max(1, Math.round(this.burst - departure.tokensBefore));
		} else {
			this.share = Math.max(BUDGET.minShare, this.share * BUDGET.shrinkFactor);
		}
		this.tokens = 0;
		this.tokensAt = now;
	}

	/**
	 * What an answer stated about the key's windows (none: the server states nothing, and the
	 * budget above applies). Call before `settle` for the same departure.
	 */
	observe(windows: StatedWindow[], now: number, rateLimited: boolean, departure: Departure): void {
		this.count.observe(windows, now, rateLimited, departure.at);
		this.reconfigure();
	}

	/** After a 429 the server told us when to come back: nobody using this key goes before then. */
	pauseUntil(atMs: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, atMs);
	}

	/** Applies the credential's limit again, under the lowest limit the server now states. */
	private reconfigure(): void {
		const requestsPerMinute = (this.credentialLimit * 60_000) / this.windowMs;
		this.configure({ requestsPerMinute, windowMs: this.windowMs });
	}

	private ratePerMs(): number {
		return (this.share * this.limit) / (this.windowMs * (1 + BUDGET.margin));
	}

	private windowWait(now: number, span: number): number {
		const allowed = Math.max(1, Math.floor(this.share * this.limit));
		if (this.recent.length < allowed) return 0;
		// A place frees a window after its answer; while the answer is out, look again soon.
		const freed = this.recent.map((d) => d.answeredAt).sort((a, b) => a - b)[
			this.recent.length - allowed
		];
		return freed === Infinity ? POLL_MS : Math.ceil(freed + span - now);
	}
}

/**
 * One budget per API key for the whole n8n process, so every node and execution using the
 * key shares it. Keyed by a hash so the key itself is never kept here.
 */
const budgetsByKeyHash = new Map<string, RateBudget>();

export function budgetForKey(apiKey: string, limit: BudgetLimit): RateBudget {
	const keyHash = createHash('sha256').update(apiKey).digest('hex');
	let budget = budgetsByKeyHash.get(keyHash);
	if (budget === undefined) {
		budget = new RateBudget(limit);
		budgetsByKeyHash.set(keyHash, budget);
	} else {
		budget.configure(limit);
	}
	return budget;
}
