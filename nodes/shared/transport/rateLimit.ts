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
 * 4. A 429 while rule 5 holds the key teaches nothing: the stated count holds us until its reset.
 *    Any other 429 in a burst sets `burst` to what the server accepted of it; one at even spacing,
 *    or despite stated room, means others share the key (or an unstated limit): share × 0.7,
 *    growing back as requests succeed along CUBIC's curve (RFC 9438, as in AWS's adaptive retry),
 *    time counted in windows: back to the share that drew the 429 within about a window, then
 *    beyond; a 429 to a request sent before the last lesson teaches nothing more, and after a
 *    window with no request sent or waiting the key starts afresh. On a key shown shared, a
 *    refused burst may be the others' doing, so `burst` is at least share × limit.
 * 5. When answers state the key's count (rate-limit headers), that count replaces rule 1 unless
 *    the credential's limit is lower: no request leaves while a stated remaining, less our
 *    requests in flight, is zero, until its stated reset; a count that rises before its reset is
 *    an older answer and is ignored, and an answer stating nothing brings back rule 1.
 * 6. Stated resets are whole seconds: a spent count whose stated reset is already due, as we
 *    read it, comes from a server rounding down (or a clock behind ours), so every later reset
 *    is read a second later, at most 3 s; rounded up, a reset may come in the second before the
 *    stated one, so when every place a count holds is ours (by rule 1's reckoning), it comes
 *    when the oldest of them frees, if that falls within that second.
 */
const RULES = {
	defaultWindowMs: 60_000,
	/** Added to the window and to the bucket's spacing: timers and clocks are not exact. */
	margin: 0.02,
	/** Rule 4: CUBIC's β (multiplicative decrease) and C (its curve's scale, share per window³). */
	decrease: 0.7,
	cubicC: 0.4,
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

type StatedCount = Pick<StatedWindow, 'remaining' | 'resetAtMs' | 'limit'>;

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
	private othersShareKey = false;
	/** The share that drew the last lesson's 429: CUBIC's W_max. */
	private shareAtLesson = 1;
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

	/** What this process currently allows itself, for tests. */
	get state() {
		return { share: this.share, burst: this.burst, resetsLateByMs: this.resetsLateByMs };
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
		if (idle) [this.burst, this.share, this.othersShareKey] = [this.limit, 1, false];
		const rate = (this.share * this.limit) / span;
		const burst = Math.max(this.burst, this.othersShareKey ? this.share * this.limit : 0);
		this.tokens = Math.min(burst, this.tokens + (now - this.tokensAt) * rate);
		this.tokensAt = now;

		const bucketWait = Math.max(
			this.tokens < 1 ? Math.ceil((1 - this.tokens) / rate) : 0,
			this.tokens >= 2 && this.inFlight > 0 ? RULES.pollMs : 0,
		);
		const statedLimit = Math.min(...[...this.stated.values()].map((c) => c.limit ?? Infinity));
		// Rule 5: a stated count replaces rule 1 unless the credential's limit is lower.
		const ownWindow = this.limit < statedLimit ? this.windowWait(now, span) : 0;
		const wait = Math.max(bucketWait, ownWindow, this.statedWait(now));
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

	/** Rule 1: how long until fewer than share × limit of our requests are in the window. */
	private windowWait(now: number, span: number): number {
		const allowed = Math.max(1, Math.floor(this.share * this.limit));
		if (this.recent.length < allowed) return 0;
		// A place frees a window after its answer; while the answer is out, look again soon.
		const freed = this.recent.map((d) => d.answeredAt).sort((a, b) => a - b)[
			this.recent.length - allowed
		];
		return freed === Infinity ? RULES.pollMs : Math.ceil(freed + span - now);
	}

	private statedWait(now: number): number {
		let wait = 0;
		for (const count of this.stated.values()) {
			if (count.remaining - this.inFlight > 0) continue;
			// After the reset the count is unknown until an answer states it; rule 2 sends a
			// burst one request at a time, so the first answer states it before the next leaves.
			const resetAt = count.resetAtMs + this.resetsLateByMs;
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
			latest.set(key, olderAnswer ? known : this.withOwnReset(window));
			if (window.remaining <= 0 && window.resetAtMs + this.resetsLateByMs <= now) {
				const later = this.resetsLateByMs + RULES.secondMs;
				this.resetsLateByMs = Math.min(RULES.resetLateAtMostMs, later);
			}
		});
		this.stated = latest;
	}

	/** Rule 6: a count whose places are all ours resets when the oldest frees, at most 1 s early. */
	private withOwnReset(window: StatedWindow): StatedWindow {
		const counted = (window.limit ?? Infinity) - window.remaining;
		const answers = this.recent.map((d) => d.answeredAt).filter((at) => at !== Infinity);
		const oldestCounted = answers.sort((a, b) => b - a)[counted - 1];
		if (oldestCounted === undefined) return window; // not every place it counts is ours
		const freesAt = oldestCounted + this.windowMs * (1 + RULES.margin); // as in rule 1
		const earliest = window.resetAtMs - RULES.secondMs; // a reset rounded up to a whole second
		return { ...window, resetAtMs: Math.min(window.resetAtMs, Math.max(earliest, freesAt)) };
	}

	/** Rule 4, when refused. */
	private learnFrom429(departure: Departure, now: number): void {
		// Refused, so not counted by the server: it holds no place in our window either.
		this.recent = this.recent.filter((d) => d !== departure);
		if (departure.at <= this.lastLessonAt || this.statedWait(now) > 0) return;
		this.lastLessonAt = now;
		if (departure.tokensBefore >= 2 && this.stated.size === 0) {
			this.burst = Math.max(1, Math.round(this.burst - departure.tokensBefore));
		} else {
			this.shareAtLesson = this.share;
			this.othersShareKey = true;
			// Never below one request per window: rule 1 allows that much anyway.
			this.share = Math.max(1 / this.limit, this.share * RULES.decrease);
		}
		this.tokens = 0;
		this.tokensAt = now;
	}

	/** Rule 4, when accepted: CUBIC, W(t) = C (t - K)³ + W_max, with W(0) the decreased share. */
	private grow(now: number): void {
		const windows = (now - this.lastLessonAt) / this.windowMs;
		const k = Math.cbrt((this.shareAtLesson * (1 - RULES.decrease)) / RULES.cubicC);
		const cubic = this.shareAtLesson + RULES.cubicC * (windows - k) ** 3;
		this.share = Math.min(1, Math.max(this.share, cubic));
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
