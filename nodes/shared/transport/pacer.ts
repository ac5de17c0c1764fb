import { createHash } from 'crypto';

import type { StatedWindow } from './rateLimitHeaders';

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
 * When the server states the key's budget in its answers (rateLimitHeaders.ts), that is the
 * truth, and it replaces the window and bucket above: no request leaves while a stated window's
 * remaining, less the requests in flight, is zero; it leaves when the window resets (one request
 * first, whose answer states the new remaining: a sliding window or a token bucket refills by
 * less than its limit). Processes sharing the key (queue mode) read the same count, and each
 * sees from it how much the others spend. While others spend too, a process sends one request
 * at a time, and only while what is left exceeds what the others may already have on the way
 * (as many requests as its last round trips saw land from them) and the window's last few
 * places. Each request then finds a place. The last places go to one process only: the one
 * whose answer stated exactly that many left (every answer's count is seen by one process), once
 * the others' requests on the way have landed. So processes sharing a key neither collide at
 * the end of a window nor leave places unused. At the end of a run the closing process may have
 * run out of work: a process whose remaining requests fit in what is left (pendingWork.ts) then
 * takes them, a little later.
 * When the count it last saw is spent, a reset is not a free-for-all either: a process
 * goes again only when one of its own places frees (a window after it took it), or, holding
 * none, a few round trips after the reset, so on a server that refills a little at each reset
 * (a token bucket) the processes take turns instead of all sending into the same refill.
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
	/** How often a waiting request looks again when the budget depends on an answer in flight. */
	pollMs: 10,
	/** How fast the measured share of a shared key forgets old answers (per answer). */
	shareMemory: 0.9,
	/** On a fresh key with stated windows: answers seen one request at a time, to see others. */
	freshKeyAnswers: 3,
	/** Alone on the key, a request may claim a place while what is left exceeds those in flight. */
	claimFrom: 0.25,
	/** Others' requests on the way: the mean of what our last round trips saw land from them. */
	roundTripsRemembered: 3,
	/**
	 * Before a round trip has shown it, others on the way follow from our share s of the count:
	 * (1 − s) ÷ s less this, at least one (a third of the count: two others, even at s = 0.4).
	 */
	othersFromShareSlack: 0.35,
	/**
	 * ... and at most this many: a process joining a key the others have nearly spent would
	 * otherwise hold back most of every window until its first round trip (simulated queue mode
	 * with staggered starts, token bucket: 0.925 → 0.973 of fastest).
	 */
	othersFromShareAtMost: 3,
	/**
	 * The last places of a stated window (at most half its limit) are left to the one process
	 * whose answer stated exactly this many left. Up to this many other processes may have a
	 * request on the way when it does, so they never land beyond the window.
	 */
	closingPlaces: 3,
	/** That process waits this many of its round trips for the others' requests to land. */
	closingWaitRoundTrips: 2,
	/**
	 * A process whose remaining requests fit in the last places takes them after this many
	 * round trips (plus one per place left), when the closing process would have filled them.
	 */
	endOfRunWaitRoundTrips: 8,
	/** After a reset, a process holding no places there waits this many round trips. */
	placelessWaitRoundTrips: 4,
	/** A round trip counted as at least this long: timers are not exact. */
	minRoundTripMs: 10,
	/** A 429 while the server states the count shows others on the key for this many windows. */
	sharedMemoryWindows: 3,
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
	/** The server's stated windows as of the latest answer that stated them. */
	private stated: StatedWindow[] = [];
	/** Decayed counts of this process's and the other clients' accepted requests. */
	private spentByUs = 0;
	private spentByOthers = 0;
	/** Our answers, and the highest and lowest stated remaining, since the last stated reset. */
	private counted = { ours: 0, highest: -Infinity, lowest: Infinity };
	/** When each place our accepted requests hold in the stated window frees again. */
	private placesFreeAt: number[] = [];
	/** Our last 429 while the server stated the count: someone else spent what we saw left. */
	private refusedAt = -Infinity;
	/** How many of the others' requests the count showed landing during our recent round trips. */
	private othersPerRoundTrip: Array<{ at: number; count: number }> = [];
	/** When our answer stated exactly the window's last places left: we close this window. */
	private closingSince = -Infinity;
	private lastRoundTripMs = 0;
	private lastAnswerAt = -Infinity;

	constructor(limit: BudgetLimit) {
		this.configure(limit);
		this.tokens = this.burst;
	}

	/** Follows changes of the credential: a new limit forgets the learnt burst, not the share. */
	configure({ requestsPerMinute, windowMs = BUDGET.defaultWindowMs }: BudgetLimit): void {
		this.credentialLimit = (requestsPerMinute * windowMs) / 60_000;
		const statedLimit = Math.min(
			...this.stated.map((w) => (w.limit === undefined ? Infinity : w.limit * this.windowScale(w))),
		);
		const limit = Math.min(this.credentialLimit, statedLimit);
		if (limit !== this.limit || windowMs !== this.windowMs) {
			this.burst = limit;
			this.tokens = Math.min(this.tokens, limit);
		}
		this.limit = limit;
		this.windowMs = windowMs;
	}

	/** What this process currently allows itself, for reports and tests. */
	get state(): { share: number; burst: number; limit: number; sharedWith: number } {
		return {
			share: this.share,
			burst: this.burst,
			limit: this.limit,
			sharedWith: this.statedShare(),
		};
	}

	/**
	 * A departure if a request may leave now (it is counted at once), otherwise the ms to wait
	 * before asking again. Synchronous, so concurrent requests never take the same place.
	 * `pending`: how many requests this process still has to send, this one included
	 * (pendingWork.ts; Infinity when unknown).
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

		if (this.stated.length > 0) {
			const statedWait = this.statedWait(now, pending);
			if (statedWait > 0) return statedWait;
		} else {
			const windowWait = this.windowWait(now, span);
			if (windowWait > 0) return windowWait;
			if (this.tokens < 1) return Math.ceil((1 - this.tokens) / rate);
			// One at a time beyond even spacing: a server without burst then refuses only one.
			if (this.tokens >= 2 && this.inFlight > 0) return BUDGET.pollMs;
		}

		const departure = { at: now, tokensBefore: this.tokens, answeredAt: Infinity };
		// A request leaving after one of our places freed takes that place again.
		if (this.placesFreeAt.length > 0 && this.placesFreeAt[0] <= now) this.placesFreeAt.shift();
		this.tokens -= 1;
		this.inFlight++;
		this.recent.push(departure);
		return departure;
	}

	/** Records the answer (or the network failure) of a departure. */
	settle(departure: Departure, now: number, rateLimited: boolean): void {
		if (this.limit <= 0 || departure.answeredAt !== Infinity) return;
		departure.answeredAt = now;
		this.lastRoundTripMs = now - departure.at;
		this.lastAnswerAt = now;
		this.inFlight--;
		// With stated windows the server's count decides, not what the 429 would teach.
		if (this.stated.length > 0) {
			const windowMs = this.statedWindowMs();
			// Places not taken again within a window are given up (and the list stays small).
			this.placesFreeAt = this.placesFreeAt.filter((at) => at + windowMs > now);
			if (!rateLimited) {
				this.placesFreeAt.push(now + windowMs);
				// What is left is the others' now: our freed places not taken again, they took.
				if (this.statedRemaining() <= this.othersOnTheWay()) {
					this.placesFreeAt = this.placesFreeAt.filter((at) => at > now);
				}
			} else {
				this.refusedAt = now;
				// Someone else took what had freed: our freed places are theirs now.
				this.placesFreeAt = this.placesFreeAt.filter((at) => at > now);
			}
			return;
		}
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
	observe(windows: StatedWindow[], now: number, rateLimited: boolean): void {
		if (windows.length === 0) {
			if (this.stated.length > 0) {
				this.stated = [];
				this.reconfigure();
			}
			return;
		}
		const tightest = (list: StatedWindow[]) =>
			list.reduce((a, b) => (b.remaining < a.remaining ? b : a));
		const before = this.stated.length > 0 ? tightest(this.stated) : undefined;
		const after = tightest(windows);
		const reset = before === undefined || now >= before.resetAtMs;
		if (reset) {
			this.learnShare();
			this.closingSince = -Infinity;
		}
		if (!rateLimited) this.counted.ours++;
		if (!rateLimited && after.remaining > 0 && after.remaining === this.closingPlaces(after)) {
			this.closingSince = now;
		}
		// Our only request on the way, answered: the count fell by it and by what others sent.
		if (!reset && !rateLimited && before !== undefined && this.inFlight === 1) {
			const count = Math.max(0, before.remaining - after.remaining - 1);
			this.othersPerRoundTrip.push({ at: now, count });
		}
		const since = now - this.statedWindowMs();
		this.othersPerRoundTrip = this.othersPerRoundTrip
			.filter((trip) => trip.at > since)
			.slice(-BUDGET.roundTripsRemembered);
		this.counted.highest = Math.max(this.counted.highest, after.remaining);
		this.counted.lowest = Math.min(this.counted.lowest, after.remaining);
		// Until the stated reset, the count only goes down: a higher one is an older count
		// overtaken on the way (a request that reached the server first may be answered last).
		if (!reset && after.remaining > (before?.remaining ?? Infinity)) return;
		this.stated = windows;
		this.reconfigure();
	}

	/**
	 * At each stated reset: how much of what the server counted since the last one was ours.
	 * The rest, other clients (other n8n workers) spent from the same key.
	 */
	private learnShare(): void {
		const { ours, highest, lowest } = this.counted;
		this.counted = { ours: 0, highest: -Infinity, lowest: Infinity };
		if (ours === 0) return;
		const others = Math.max(0, highest - lowest + 1 - ours);
		const kept = BUDGET.shareMemory ** ours;
		this.spentByUs = this.spentByUs * kept + ours;
		this.spentByOthers = this.spentByOthers * kept + others;
	}

	/** After a 429 the server told us when to come back: nobody using this key goes before then. */
	pauseUntil(atMs: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, atMs);
	}

	/** The ms to wait before the stated windows let one more request leave (0: now). */
	private statedWait(now: number, pending: number): number {
		let wait = 0;
		for (const window of this.stated) {
			if (now >= window.resetAtMs) {
				// Reset: one request at a time until an answer states the new remaining.
				if (this.inFlight > 0) wait = Math.max(wait, BUDGET.pollMs);
				else if (window.remaining <= this.othersOnTheWay() && this.sharedWithOthers(now)) {
					wait = Math.max(wait, this.ownPlaceWait(now, window.resetAtMs));
				}
				continue;
			}
			// Above the credential's limit, the surplus is not ours to spend.
			const credentialLimit = this.credentialLimit / this.windowScale(window);
			const surplus = Math.max(0, (window.limit ?? 0) - credentialLimit);
			const remaining = window.remaining - surplus;
			if (this.mayClaim(remaining, window, now, pending)) continue;
			const lastPlacesAt = remaining >= 1 ? this.lastPlacesAt(remaining, pending) : Infinity;
			const until = Math.min(lastPlacesAt, window.resetAtMs);
			wait = Math.max(wait, this.inFlight > 0 ? BUDGET.pollMs : Math.ceil(until - now));
		}
		return wait;
	}

	/**
	 * After the stated count ran out, with others on the key: the ms until one of our own places
	 * frees (0: one has, or we hold none and may try for one).
	 */
	private ownPlaceWait(now: number, resetAtMs: number): number {
		const next = this.placesFreeAt[0];
		// Holding none, we try for a freed place once those whose places freed had their turn.
		if (next === undefined) {
			const after = resetAtMs + BUDGET.placelessWaitRoundTrips * this.roundTripMs();
			return Math.max(0, Math.ceil(after - now));
		}
		return next <= now ? 0 : Math.ceil(next - now);
	}

	private roundTripMs(): number {
		return Math.max(this.lastRoundTripMs, BUDGET.minRoundTripMs);
	}

	/** Whether others spend from this key: the count drops faster than we spend, or a 429 came. */
	private sharedWithOthers(now: number): boolean {
		const sinceRefused = now - this.refusedAt;
		return (
			this.statedShare() < 1 || sinceRefused < BUDGET.sharedMemoryWindows * this.statedWindowMs()
		);
	}

	/**
	 * How long a request holds its place: the stated window's length, else the stated limit at
	 * the credential's rate (a key stating 10 with the credential at 60 per minute: 10 s).
	 */
	private statedWindowMs(): number {
		const stated = this.stated.find((w) => w.windowMs !== undefined)?.windowMs;
		if (stated !== undefined) return stated;
		const limit = Math.min(...this.stated.map((w) => w.limit ?? Infinity));
		return limit < this.credentialLimit
			? (limit / this.credentialLimit) * this.windowMs
			: this.windowMs;
	}

	/**
	 * Whether one more request of ours fits in what the server says is left. Alone on the key:
	 * while what is left exceeds our requests in flight. Sharing it: one request at a time,
	 * while what is left exceeds what the others may have on the way and the window's last
	 * places; those only when we close the window. On a fresh key, until a few answers have
	 * shown whether anyone else spends from it, one request at a time.
	 */
	private mayClaim(remaining: number, window: StatedWindow, now: number, pending: number): boolean {
		const fresh = this.spentByUs === 0 && this.counted.ours < BUDGET.freshKeyAnswers;
		if (fresh && this.inFlight > 0) return false;
		if (this.statedShare() >= 1) return remaining - this.inFlight >= BUDGET.claimFrom;
		if (this.inFlight > 0) return false;
		if (remaining > Math.max(this.closingPlaces(window), this.othersOnTheWay())) return true;
		return remaining >= 1 && now >= this.lastPlacesAt(remaining, pending);
	}

	/**
	 * When we may take one of the window's last places: when we close the window, or when all we
	 * still have to send fits in what is left (the end of our run: the process closing the window
	 * may have run out of work, and a place left unused here would cost a whole window). The
	 * latter after the closing process would have filled them, the fewer left the sooner, so
	 * that two processes ending their runs rarely go at once.
	 */
	private lastPlacesAt(remaining: number, pending: number): number {
		const roundTrip = this.roundTripMs();
		const closing =
			this.closingSince === -Infinity
				? Infinity
				: this.closingSince + BUDGET.closingWaitRoundTrips * roundTrip;
		const ending =
			pending <= remaining
				? this.lastAnswerAt + (BUDGET.endOfRunWaitRoundTrips + remaining) * roundTrip
				: Infinity;
		return Math.min(closing, ending);
	}

	/** How many places at the end of the window are left to the process that closes it. */
	private closingPlaces(window: StatedWindow): number {
		if (window.limit === undefined) return 0;
		return Math.min(BUDGET.closingPlaces, Math.floor(window.limit / 2));
	}

	/**
	 * How many of the others' requests may be on the way, not yet in the count we read: about
	 * as many as landed during each of our last round trips (the others send one at a time too).
	 */
	private othersOnTheWay(): number {
		const trips = this.othersPerRoundTrip;
		if (trips.length > 0) {
			return Math.round(trips.reduce((sum, trip) => sum + trip.count, 0) / trips.length);
		}
		const share = this.statedShare();
		if (share >= 1) return 0;
		const others = Math.ceil((1 - share) / share - BUDGET.othersFromShareSlack);
		return Math.min(BUDGET.othersFromShareAtMost, Math.max(1, others));
	}

	/** The least the stated windows have left, as of the latest answer. */
	private statedRemaining(): number {
		return Math.min(...this.stated.map((w) => w.remaining));
	}

	/**
	 * This process's share of the stated count: 1 while nobody else spends from it. What the
	 * count dropped since the last reset beyond our answers and requests in flight is spent
	 * by others too, so a second client is noticed within the first window.
	 */
	private statedShare(): number {
		const { ours, highest, lowest } = this.counted;
		const othersNow = ours === 0 ? 0 : Math.max(0, highest - lowest + 1 - ours - this.inFlight);
		const us = this.spentByUs + ours;
		const total = us + this.spentByOthers + othersNow;
		return total === 0 ? 1 : us / total;
	}

	/** Our window ÷ the stated window (1 when it states no length: taken as ours). */
	private windowScale(window: StatedWindow): number {
		return window.windowMs === undefined ? 1 : this.windowMs / window.windowMs;
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
		return freed === Infinity ? BUDGET.pollMs : Math.ceil(freed + span - now);
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
