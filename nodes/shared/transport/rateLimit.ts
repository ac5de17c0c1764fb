import { createHash } from 'crypto';

import type { StatedWindow } from './rateLimitHeaders';

/**
 * The request budget of one API key in this n8n process, shared by every execution using it.
 * `limit`: the credential's Requests per Minute, per its window. `share`: the part of it this
 * process allows itself, 1 at first, cut by rule 4d, never above 1. A request leaves when:
 * 1. Window: fewer than share × limit of our requests are in the window; each holds its place
 *    from when it leaves until a window after its answer (the server counts it in between).
 * 2. Bucket: it has a token; tokens refill at share × limit per window, up to `burst`. The bucket
 *    starts full (burst = limit): a fresh key sends a window's worth at once, one request at a
 *    time while 2 or more tokens are left, so a server without burst refuses one, not many.
 * 3. Pause: no 429's Retry-After is still running (the retry policy sets it for the whole key).
 * 4. What a 429 teaches besides:
 *    a. Nothing while rule 5 holds the key (its count holds us until its reset), nor when sent
 *       before the last lesson (it met what that lesson learnt).
 *    b. The key's first refused burst sets `burst` to what the server accepted of it and empties
 *       the bucket: only that burst is known to start from a full bucket.
 *    c. A later refused burst costs only its pause, once a window: it met a window still freeing
 *       what it took a window ago, or others' requests. Refused again within a window: as b.
 *    d. A 429 at even spacing, or despite stated room, means others share the key (or a limit
 *       goes unstated): share × 0.7, at least one request per window; the bucket empties.
 *    e. The share grows back as requests succeed, along CUBIC's curve (RFC 9438, as in AWS's
 *       adaptive retry) in windows: to the share that drew the 429 in about a window. 2 or more
 *       tokens grow with it: they refilled at the cut share while the server freed its window.
 *    f. Once d shows others share the key, a refused burst may be theirs: burst ≥ share × limit.
 *    g. A window with no request sent or waiting starts the key afresh: share 1, burst = limit.
 * 5. Stated count: a count the answers state (rate-limit headers) replaces rule 1 (kept if the
 *    credential's limit is lower or none is stated; rule 2 stays): while its remaining, less our
 *    requests in flight, is 0, nothing leaves until its reset. A count rising before its reset
 *    is an older answer, ignored; an answer stating none brings rule 1 back.
 * 6. Stated resets are whole seconds:
 *    a. A spent count whose reset is already due, as we read it, comes from a server rounding
 *       down (or a clock behind ours): later resets are read a second later, 3 s at most.
 *    b. Rounded up, a reset may come in the second before the stated one: when every place a
 *       count holds is ours (by rule 1), it comes when the oldest of them frees, if in that second.
 */
const RULES = {
	defaultWindowMs: 60_000,
	/** Added to the window and to the bucket's spacing: timers and clocks are not exact. */
	margin: 0.02,
	/** Rules 4d, 4e: CUBIC's β (multiplicative decrease) and C (its curve's scale, per window³). */
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
	/** Until when a request of ours last wanted to leave (rule 4g's window without requests). */
	private wantedUntil = -Infinity;
	private lastLessonAt = -Infinity;
	private burstPausedAt = -Infinity; // when a refused burst last cost only its pause (rule 4c)
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
		[this.limit, this.windowMs] = [limit, windowMs];
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
		if (idle) this.lastLessonAt = -Infinity; // rule 4b: the next refused burst is the first
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
		const answers = this.recent.map((d) => d.answeredAt).sort((a, b) => a - b);
		const freed = answers[this.recent.length - allowed];
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

	/** Rule 6b: a count whose places are all ours resets when the oldest frees, at most 1 s early. */
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
		const inBurst = departure.tokensBefore >= 2 && this.stated.size === 0;
		if (inBurst && this.lastLessonAt > -Infinity && now - this.burstPausedAt > this.windowMs) {
			this.burstPausedAt = now; // 4c: its pause covers it
			return;
		}
		this.lastLessonAt = now;
		if (inBurst) {
			this.burst = Math.max(1, Math.round(this.burst - departure.tokensBefore));
		} else {
			[this.shareAtLesson, this.othersShareKey] = [this.share, true];
			this.share = Math.max(1 / this.limit, this.share * RULES.decrease);
		}
		[this.tokens, this.tokensAt] = [0, now];
	}

	/** Rule 4e: CUBIC, W(t) = C (t - K)³ + W_max, W(0) the cut share; a burst's tokens scale. */
	private grow(now: number): void {
		const windows = (now - this.lastLessonAt) / this.windowMs;
		const k = Math.cbrt((this.shareAtLesson * (1 - RULES.decrease)) / RULES.cubicC);
		const cubic = this.shareAtLesson + RULES.cubicC * (windows - k) ** 3;
		const share = Math.min(1, Math.max(this.share, cubic));
		if (this.tokens >= 2) this.tokens *= share / this.share; // fewer time the next request
		this.share = share;
	}
}

/** One budget per key for the whole n8n process, kept by its hash: the key itself is not kept. */
const budgetsByKeyHash = new Map<string, RateBudget>();

export function budgetForKey(apiKey: string, limit: BudgetLimit): RateBudget {
	const keyHash = createHash('sha256').update(apiKey).digest('hex');
	const budget = budgetsByKeyHash.get(keyHash) ?? new RateBudget(limit);
	budgetsByKeyHash.set(keyHash, budget);
	budget.configure(limit);
	return budget;
}
