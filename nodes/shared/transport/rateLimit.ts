import { createHash } from 'crypto';

import type { StatedWindow } from './rateLimitHeaders';

/**
 * The request budget of one API key in this n8n process, shared by every execution using it.
 * A request leaves when every rule below allows it:
 * 1. Window: at most share × limit of our requests in any window (the credential's Requests per
 *    Minute; share starts at 1), each holding its place from when it leaves until a window after
 *    its answer, since the server may count it anywhere in between.
 * 2. Bucket: requests spend tokens refilled at share × limit per window, at most `burst` held
 *    (at first the whole limit); while faster than that even spacing, one request is in flight
 *    at a time, so a server that allows no burst refuses just one.
 * 3. A 429 pauses every request on the key until its Retry-After (the transport's retry policy).
 * 4. A 429 during a burst sets `burst` to what the server accepted of it; a 429 at even spacing,
 *    or while the server states its count (which shows its burst), means others share the key:
 *    share × 0.7 (the β of AWS's adaptive retry and of CUBIC), growing back as requests succeed,
 *    faster the longer since the last decrease (alone again: the whole key within about three
 *    windows); a 429 to a request sent before the last lesson teaches nothing more, and after a
 *    window with no request sent or waiting the key starts afresh.
 * 5. When answers state the key's count (rate-limit headers), that count replaces rule 1 unless
 *    the credential's limit is lower: no request leaves while a stated remaining, less our
 *    requests in flight, is zero, until its stated reset; a count that rises before its reset is
 *    an older answer and is ignored, and an answer stating nothing brings back rule 1.
 * 6. A spent count whose stated reset is already due, as we read it, comes from a server
 *    rounding its resets down (or a clock behind ours): every later reset is read a second
 *    later, at most 3 s. A reset stated as an epoch second is only known to that second: in the
 *    second before it, rules 1 and 2 at the lowest known limit decide.
 */
const RULES = {
	defaultWindowMs: 60_000,
	/** Added to the window and to the bucket's spacing: timers and clocks are not exact. */
	margin: 0.02,
	/** Rule 4's multiplicative decrease: the β of AWS's adaptive retry mode and of CUBIC. */
	decrease: 0.7,
	/** Rule 4's growth per window of successes, per window since the decrease, in share. */
	growthPerWindowSquared: 0.25,
	/** Rule 6: a reset stated in whole seconds is a second off at most; late by 3 s in all. */
	secondMs: 1000,
	resetLateAtMostMs: 3000,
	/** How soon a waiting request looks again while an answer that decides is on its way. */
	pollMs: 10,
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

/** What an answer said of the key's limit (network failures say nothing). */
export interface RateAnswer {
	rateLimited: boolean;
	stated: StatedWindow[];
}

type StatedCount = Pick<StatedWindow, 'remaining' | 'resetAtMs' | 'limit' | 'wallClockReset'>;

export class RateBudget {
	private limit = 0;
	private windowMs: number = RULES.defaultWindowMs;
	private share = 1;
	private burst = 0;
	private tokens = 0;
	private tokensAt = 0;
	private inFlight = 0;
	private recent: Departure[] = [];
	private pausedUntil = 0;
	/** Until when a request of ours last wanted to leave (rule 4's window without requests). */
	private wantedUntil = -Infinity;
	private lastLessonAt = -Infinity;
	/** The counts the last answer stated, one per stated window (rule 5); empty: none stated. */
	private stated = new Map<string, StatedCount>();
	private resetsLateByMs = 0;

	constructor(limit: BudgetLimit) {
		this.configure(limit);
		this.tokens = this.burst; // a new key starts with its whole burst
	}

	/** Follows changes of the credential: a new limit restores the whole burst, not the share. */
	configure({ requestsPerMinute, windowMs = RULES.defaultWindowMs }: BudgetLimit): void {
		const limit = (requestsPerMinute * windowMs) / 60_000;
		if (limit !== this.limit || windowMs !== this.windowMs) {
			this.burst = limit;
			this.tokens = Math.min(this.tokens, limit);
		}
		this.limit = limit;
		this.windowMs = windowMs;
	}

	/** The longest wait for a turn on a busy key; longer: a stated quota (hourly, daily) is spent. */
	get turnWaitsAtMostMs(): number {
		return 2 * this.windowMs;
	}

	/** What this process currently allows itself, for reports and tests. */
	get state() {
		const { share, burst, limit, resetsLateByMs } = this;
		return { share, burst, limit, resetsLateByMs, statesCount: this.stated.size > 0 };
	}

	/**
	 * A departure if a request may leave now (it is counted at once), otherwise the ms to wait
	 * before asking again. Synchronous, so concurrent requests never take the same place.
	 */
	departOrWait(now: number): Departure | number {
		const wait = this.waitAt(now);
		// A request told to wait is still wanted then: waiting is not being idle.
		this.wantedUntil = Math.max(this.wantedUntil, now + (typeof wait === 'number' ? wait : 0));
		return wait;
	}

	private waitAt(now: number): Departure | number {
		if (now < this.pausedUntil) return this.pausedUntil - now;
		if (this.limit <= 0) return { at: now, tokensBefore: Infinity, answeredAt: now };
		const span = this.windowMs * (1 + RULES.margin);
		this.recent = this.recent.filter((d) => d.answeredAt === Infinity || d.answeredAt + span > now);
		const idle = this.recent.length === 0 && now - this.wantedUntil >= span;
		if (idle) [this.burst, this.share] = [this.limit, 1];
		const rate = (this.share * this.limit) / span;
		this.tokens = Math.min(this.burst, this.tokens + (now - this.tokensAt) * rate);
		this.tokensAt = now;

		const bucketWait = Math.max(
			this.tokens < 1 ? Math.ceil((1 - this.tokens) / rate) : 0,
			this.tokens >= 2 && this.inFlight > 0 ? RULES.pollMs : 0,
		);
		const statedLimit = Math.min(...[...this.stated.values()].map((c) => c.limit ?? Infinity));
		// Rule 1 at the lowest limit known: the credential's, or a lower one the server states.
		const ownWait = Math.max(
			bucketWait,
			this.windowWait(now, span, Math.min(this.limit, statedLimit)),
		);
		// Rule 5: a stated count replaces rule 1 unless the credential's limit is lower.
		const wait = Math.max(
			this.limit < statedLimit ? ownWait : bucketWait,
			this.statedWait(now, ownWait),
		);
		if (wait > 0) return wait;

		const departure = { at: now, tokensBefore: this.tokens, answeredAt: Infinity };
		this.tokens -= 1;
		this.inFlight++;
		this.recent.push(departure);
		return departure;
	}

	/** Records how a departure ended: its answer, or none (a network failure). */
	settle(departure: Departure, now: number, answer?: RateAnswer): void {
		if (this.limit <= 0 || departure.answeredAt !== Infinity) return;
		departure.answeredAt = now;
		this.inFlight--;
		if (answer === undefined) return;
		this.readStated(answer.stated, now);
		if (answer.rateLimited) this.learnFrom429(departure, now);
		else this.grow(now);
	}

	/** Rule 3: the server told us when to come back; nobody using this key goes before then. */
	pauseUntil(atMs: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, atMs);
	}

	private windowWait(now: number, span: number, limit: number): number {
		const allowed = Math.max(1, Math.floor(this.share * limit));
		if (this.recent.length < allowed) return 0;
		// A place frees a window after its answer; while the answer is out, look again soon.
		const freed = this.recent.map((d) => d.answeredAt).sort((a, b) => a - b)[
			this.recent.length - allowed
		];
		return freed === Infinity ? RULES.pollMs : Math.ceil(freed + span - now);
	}

	/** Rules 5 and 6; `ownWait`: what rules 1 and 2 alone would wait. */
	private statedWait(now: number, ownWait: number): number {
		let wait = 0;
		for (const count of this.stated.values()) {
			if (count.remaining - this.inFlight > 0) continue;
			// After the reset the count is unknown until an answer states it; rule 2 sends a
			// burst one request at a time, so the first answer states it before the next leaves.
			let resetAt = count.resetAtMs + this.resetsLateByMs;
			if (count.wallClockReset) {
				resetAt = Math.min(resetAt, Math.max(resetAt - RULES.secondMs, now + ownWait));
			}
			if (now < resetAt) wait = Math.max(wait, Math.ceil(resetAt - now));
		}
		return wait;
	}

	/** Rules 5 and 6: the latest count of each stated window. */
	private readStated(windows: StatedWindow[], now: number): void {
		if (windows.length === 0) return this.stated.clear();
		const latest = new Map<string, StatedCount>();
		windows.forEach((window, index) => {
			const key = `${index}:${window.limit}:${window.windowMs}`;
			const known = this.stated.get(key);
			const knownResetAt = (known?.resetAtMs ?? 0) + this.resetsLateByMs;
			const olderAnswer = known && now < knownResetAt && window.remaining > known.remaining;
			latest.set(key, olderAnswer ? known : window);
			if (window.remaining <= 0 && window.resetAtMs + this.resetsLateByMs <= now) {
				const later = this.resetsLateByMs + RULES.secondMs;
				this.resetsLateByMs = Math.min(RULES.resetLateAtMostMs, later);
			}
		});
		this.stated = latest;
	}

	/** Rule 4, when refused. */
	private learnFrom429(departure: Departure, now: number): void {
		// Refused, so not counted by the server: it holds no place in our window either.
		this.recent = this.recent.filter((d) => d !== departure);
		if (departure.at <= this.lastLessonAt) return;
		this.lastLessonAt = now;
		if (departure.tokensBefore >= 2 && this.stated.size === 0) {
			this.burst = Math.max(1, Math.round(this.burst - departure.tokensBefore));
		} else {
			// Never below one request per window: rule 1 allows that much anyway.
			this.share = Math.max(1 / this.limit, this.share * RULES.decrease);
		}
		this.tokens = 0;
		this.tokensAt = now;
	}

	/** Rule 4, when accepted: slowly near the share that drew the 429, faster the longer none comes. */
	private grow(now: number): void {
		const perWindow = Math.max(1, this.share * this.limit);
		const windowsSinceLesson = (now - this.lastLessonAt) / this.windowMs;
		const growth = RULES.growthPerWindowSquared * windowsSinceLesson;
		this.share = Math.min(1, this.share + growth / perWindow);
	}
}

/**
 * One budget per API key for the whole n8n process, so every node and execution using the
 * key shares it. Keyed by a hash so the key itself is never kept here.
 */
const budgetsByKeyHash = new Map<string, RateBudget>();

export function budgetForKey(apiKey: string, limit: BudgetLimit): RateBudget {
	const keyHash = createHash('sha256').update(apiKey).digest('hex');
	const budget = budgetsByKeyHash.get(keyHash) ?? new RateBudget(limit);
	budgetsByKeyHash.set(keyHash, budget);
	budget.configure(limit);
	return budget;
}
