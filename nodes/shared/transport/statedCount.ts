import type { StatedWindow } from './rateLimitHeaders';

/** How often a waiting request looks again when the budget depends on an answer in flight. */
export const POLL_MS = 10;

const COUNT = {
	/** How fast the measured share of a shared key forgets old answers (per answer). */
	shareMemory: 0.9,
	/**
	 * A process that neither asked for nor heard from the key for this many stated windows comes
	 * back to it as to a fresh key (`freshAgainAfterIdle`).
	 */
	idleWindows: 1.5,
	/** On a fresh key with stated windows: answers seen one request at a time, to see others. */
	freshKeyAnswers: 3,
	/** ... and for this long after its first answer: other workers starting a moment later. */
	freshKeyMs: 500,
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
	/**
	 * On a sliding log shared with others, an answer whose count rose shows places just freed,
	 * each its owner's to take again: for this many round trips a process claims none of them
	 * beyond its own (simulated grid, 3 workers at 10 per 10 s, ietf: 1.17% → 0.86% refused, mean
	 * 0.967 → 0.975 of fastest, worst shape 0.913 → 0.960; 2 round trips: 0.97%, 0.971).
	 */
	ownersTurnRoundTrips: 1,
	/** After a reset, a process holding no places there waits this many round trips. */
	placelessWaitRoundTrips: 4,
	/** A round trip counted as at least this long: timers are not exact. */
	minRoundTripMs: 10,
	/** A 429 while the server states the count shows others on the key for this many windows. */
	sharedMemoryWindows: 3,
	/**
	 * Others that spent nothing for this many stated windows, over at least `quietAnswers` of
	 * our answers, have stopped: the key is ours alone again (one worker's run on a key all the
	 * workers shared a moment ago). One window is not enough: while all are busy, a worker's
	 * answers can show nobody else for a whole window (a sliding window's frees hide the others'
	 * requests), and it then spent as if alone (simulated, 3 workers at 10 per 10 s: 1.7 → 2.3%
	 * of requests answered 429).
	 */
	quietWindows: 2,
	quietAnswers: 3,
	/**
	 * A count we read longer ago than this is less what the others may have taken since, at their
	 * share: it was read before our last run ended, say (simulated, one worker's run on a key
	 * three had just shared: 5 runs in 10 drew a 429 on their first request, 1 with this). Within
	 * a window our waits are shorter, and the others then wait too (60 per 10 s, 3 workers, with
	 * no such floor: 0.92 → 0.87 of fastest).
	 */
	staleCountMs: 1000,
	/**
	 * How much later than stated a reset may come, per answer that showed a stated reset early:
	 * a server rounding its Reset down to whole seconds (or to the nearest) states it up to 1 s
	 * early. At most `resetLateAtMost` in all (a server clock a little behind ours, too).
	 */
	resetLateStepMs: 1000,
	resetLateAtMostMs: 3000,
} as const;

/** How the server refills, as our answers have shown it so far. */
export type RefillKind = 'unknown' | 'steadily' | 'by windows' | 'whole windows at once';

/** A place one of our accepted requests holds in the stated count. */
interface Place {
	answeredAt: number;
	/** The count and reset its answer stated. */
	remaining: number;
	resetAtMs: number;
}

/**
 * The key's budget as the server states it in its answers (rateLimitHeaders.ts), for one n8n
 * process: when it states it, it is the truth, and it replaces pacer.ts's own window and bucket.
 * No request leaves while a stated window's remaining, less the requests in flight, is zero; it
 * leaves when the window resets (one request first, whose answer states the new remaining: a
 * sliding window or a token bucket refills by less than its limit).
 *
 * Processes sharing the key (queue mode) read the same count, and each sees from it how much the
 * others spend. While others spend too, a process sends one request at a time, and only while
 * what is left exceeds what the others may already have on the way (as many requests as its
 * last round trips saw land from them) and the window's last few places. Each request then finds
 * a place. The last places go to one process only: the one whose answer stated exactly that many
 * left (every answer's count is seen by one process), once the others' requests on the way have
 * landed. So processes sharing a key neither collide at the end of a window nor leave places
 * unused. On a fresh key (and back on it after a while) a process spreads its first window over
 * its first moments, so that workers starting a moment apart each get a fair part of it: each
 * place then keeps coming back to its owner. At the end of a run the closing process may have run
 * out of work: a process whose remaining requests fit in what is left (pendingWork.ts) then takes
 * them, a little later. Alone as far as it knows, a process takes the last places one at a time
 * too, and on a fresh key only after its first moments (on a token bucket also sharing it): a
 * worker starting a moment later sends its first request blind, and should find a place. Others
 * that show no spending for two windows have stopped (their runs ended), and the key is ours alone
 * again; a count read a while ago is less what they may have taken since.
 *
 * When the count it last saw is spent, a reset is not a free-for-all either: a process goes
 * again only when one of its own places frees (a window after it took it; on a fixed window, at
 * the reset), or, holding none, a few round trips after the reset, so on a server that refills a
 * little at each reset (a token bucket) the processes take turns instead of all sending into the
 * same refill. Refused while holding none, on a window server it goes right at the reset: there
 * the whole window refills, and waiting behind the others' places it would be refused at every
 * reset. A server whose stated reset is never further than one refill (window ÷ limit) refills
 * steadily: there the places refill oldest first, one per refill, so each process knows from the
 * counts its answers stated which refill is its own; after a burst they take turns at every
 * refill instead of all waiting a window. A stated reset comes in whole seconds, up to one late:
 * alone, a process moves it to what its own requests show (`boundReset`). A server rounding
 * down states it up to a second early: once a spent count's reset shows as already due, every
 * reset is read a second later (`readResets`).
 */
export class StatedCount {
	/** The credential's limit per its window, and that window. */
	private credentialLimit = 0;
	private windowMs = 60_000;
	/** Our requests on the way (every request, also before the server stated anything). */
	private inFlight = 0;
	/** The server's stated windows as of the latest answer that stated them. */
	private stated: StatedWindow[] = [];
	/** Decayed counts of this process's and the other clients' accepted requests. */
	private spentByUs = 0;
	private spentByOthers = 0;
	/** When an answer last showed others spending, and our answers since that showed none. */
	private othersSeenAt = -Infinity;
	private answersWithoutOthers = 0;
	/** Our answers, and the highest and lowest stated remaining, since the last stated reset. */
	private counted = { ours: 0, highest: -Infinity, lowest: Infinity };
	/** The places our accepted requests hold in the stated count, as their answers stated it. */
	private places: Place[] = [];
	/** The count our last accepted answer stated (observe, then settle, records its place). */
	private answered: Place = { answeredAt: -Infinity, remaining: 0, resetAtMs: 0 };
	/**
	 * Our answers whose stated reset was one refill away, and those whose reset was further:
	 * whether the server refills steadily (a token bucket) or by windows. One of the latter
	 * settles it for good. `whole`: a window server that frees its whole count at the reset.
	 */
	private refillEvidence = { steady: 0, windowed: 0, whole: false };
	/** The limits and windows the server states, as of the latest answer. */
	private policy = '';
	/** The most the stated count has held (with our request): a token bucket's burst, at least. */
	private largestCount = 0;
	/** When the answer came to our request that found the count at its largest (boundReset). */
	private fullBucketTakenAt = -Infinity;
	/** Our last 429 while the server stated the count: someone else spent what we saw left. */
	private refusedAt = -Infinity;
	/** Our recent accepted requests, newest last: when each left and when its answer came. */
	private accepted: Array<{ sentAt: number; answeredAt: number }> = [];
	/** Our 429s in a row while holding no place: each lets one more refill go to the others. */
	private placelessRefusals = 0;
	/** How many of the others' requests the count showed landing during our recent round trips. */
	private othersPerRoundTrip: Array<{ at: number; count: number }> = [];
	/** When our answer stated exactly the window's last places left: we close this window. */
	private closingSince = -Infinity;
	private lastRoundTripMs = 0;
	private lastAnswerAt = -Infinity;
	/** Until when our requests were last told to wait (`wait`): till then we were not idle. */
	private waitingUntil = -Infinity;
	/** Our accepted answers that stated the count, and when the first came (since we were idle). */
	private statedAnswers = 0;
	private firstStatedAt = -Infinity;
	/** When an answer last showed the count risen at a reset: places freed, their owners' first. */
	private freedSeenAt = -Infinity;
	/** How much later than stated the server's resets may come (`readResets`). */
	private resetsLateByMs = 0;
	/** The latest answer showed its reset stated early: a 429 then was our early request's. */
	private answerShowedEarlyReset = false;

	/** How the server refills, as our answers have shown it (for reports and tests). */
	refills(): RefillKind {
		if (this.refillEvidence.whole) return 'whole windows at once';
		if (this.refillsSteadily()) return 'steadily';
		return this.refillEvidence.windowed > 0 ? 'by windows' : 'unknown';
	}

	/** The credential's Requests per Minute, as a limit per its window: the user's ceiling. */
	setCredential(limitPerWindow: number, windowMs: number): void {
		this.credentialLimit = limitPerWindow;
		this.windowMs = windowMs;
	}

	/** Whether the latest answer stated the count: then it decides, not pacer.ts's own budget. */
	get active(): boolean {
		return this.stated.length > 0;
	}

	/** The lowest limit the server states, per the credential's window (Infinity: none). */
	lowestLimit(): number {
		return Math.min(
			...this.stated.map((w) => (w.limit === undefined ? Infinity : w.limit * this.windowScale(w))),
		);
	}

	/** A request left: one leaving after one of our places freed takes that place again. */
	departed(now: number): void {
		const freed = this.places.findIndex((place) => this.placeFreesAt(place) <= now);
		if (freed >= 0) this.places.splice(freed, 1);
		this.inFlight++;
	}

	/** A request's answer came (or it failed on the network); call after `observe`. */
	settle(sentAt: number, now: number, rateLimited: boolean): void {
		this.lastRoundTripMs = now - sentAt;
		this.lastAnswerAt = now;
		this.inFlight--;
		if (!this.active) return;
		const windowMs = this.statedWindowMs();
		// Places not taken again within a window are given up (and the list stays small).
		this.places = this.places.filter((place) => this.placeFreesAt(place) + windowMs > now);
		if (!rateLimited) {
			this.places.push(this.answered);
			// Answers older than the longest window hold nothing any more (and the list stays small).
			const heldMs = this.longestStatedWindowMs();
			this.accepted = this.accepted.filter((request) => request.answeredAt + heldMs > now);
			this.accepted.push({ sentAt, answeredAt: now });
			this.placelessRefusals = 0;
			// What is left is the others' now: our freed places not taken again, they took.
			if (this.statedRemaining() <= this.othersOnTheWay()) this.giveUpFreedPlaces(now);
		} else if (!this.answerShowedEarlyReset) {
			this.refusedAt = now;
			this.sawOthers(1, now);
			if (this.places.length === 0) this.placelessRefusals++;
			// Someone else took what had freed: our freed places are theirs now.
			this.giveUpFreedPlaces(now);
		}
	}

	/**
	 * What an answer stated about the key's windows (none: the server states nothing, and
	 * pacer.ts's own budget applies). Call before `settle` for the same request.
	 */
	observe(stated: StatedWindow[], now: number, rateLimited: boolean, sentAt: number): void {
		if (stated.length === 0) {
			this.stated = [];
			this.answerShowedEarlyReset = false;
			return;
		}
		const windows = this.readResets(stated, now, sentAt);
		const tightest = (list: StatedWindow[]) =>
			list.reduce((a, b) => (b.remaining < a.remaining ? b : a));
		const before = this.stated.length > 0 ? tightest(this.stated) : undefined;
		const after = tightest(windows);
		const reset = before === undefined || now >= before.resetAtMs;
		// Another policy (limits or windows): how it refills is to be learnt anew.
		const policy = windows.map((w) => `${w.limit}/${w.windowMs}`).join(' ');
		const policyChanged = policy !== this.policy;
		if (policyChanged) {
			this.policy = policy;
			this.refillEvidence = { steady: 0, windowed: 0, whole: false };
			this.largestCount = 0;
			this.fullBucketTakenAt = -Infinity;
		}
		if (reset) {
			this.learnShare(now);
			this.closingSince = -Infinity;
		}
		if (!rateLimited) this.counted.ours++;
		if (!rateLimited && this.statedAnswers++ === 0) this.firstStatedAt = now;
		if (!rateLimited && after.remaining > 0 && after.remaining === this.closingPlaces(after)) {
			this.closingSince = now;
		}
		this.weighRefill(after, now);
		if (reset && !rateLimited && before !== undefined && after.remaining + 1 > before.remaining) {
			this.freedSeenAt = now;
		}
		if (reset && !rateLimited) {
			this.weighWholeRefill(after, now);
			this.countOthersBeforeUs(after, now);
		}
		if (!rateLimited) {
			this.largestCount = Math.max(this.largestCount, after.remaining + 1);
			// This request found the bucket full: it refills on a clock started by this request.
			if (after.remaining + 1 === this.largestCount) this.fullBucketTakenAt = now;
			this.countOthersBetweenRefills(after, now);
			this.answered = { answeredAt: now, remaining: after.remaining, resetAtMs: after.resetAtMs };
		}
		// Our only request on the way, answered: the count fell by it and by what others sent.
		if (!reset && !rateLimited && before !== undefined && this.inFlight === 1) {
			const count = Math.max(0, before.remaining - after.remaining - 1);
			this.othersPerRoundTrip.push({ at: now, count });
			this.sawOthers(count, now);
		}
		const since = now - this.statedWindowMs();
		this.othersPerRoundTrip = this.othersPerRoundTrip
			.filter((trip) => trip.at > since)
			.slice(-COUNT.roundTripsRemembered);
		if (!rateLimited) this.forgetOthersWhenQuiet(now);
		this.counted.highest = Math.max(this.counted.highest, after.remaining);
		this.counted.lowest = Math.min(this.counted.lowest, after.remaining);
		// Until the stated reset, the count only goes down: a higher one is an older count
		// overtaken on the way (a request that reached the server first may be answered last).
		if (!reset && after.remaining > (before?.remaining ?? Infinity)) return;
		// A 429's reset, in whole seconds rounded up, is no closer than the one our answer before
		// it stated for the same count: keep that one (it came earlier in the window).
		const previous = this.stated;
		this.stated = windows.map((window, i) => {
			const earlier = rateLimited && !reset && !policyChanged ? previous[i]?.resetAtMs : undefined;
			return earlier !== undefined && earlier < window.resetAtMs
				? { ...window, resetAtMs: earlier }
				: window;
		}); // what boundReset reads the window's length from
		this.stated = this.stated.map((window) => this.boundReset(window, now));
	}

	/**
	 * The stated windows with their resets as late as the server has shown they may come. Rounded
	 * up to whole seconds (RFC 9110's way with Retry-After, and the IETF draft's), the reset of a
	 * spent count is never due when the server states it: in seconds from now, it is at least 1;
	 * on its clock, after our request left. A spent count with its reset already due shows the
	 * server rounding down (`int(seconds)`, common in hand-written limiters) or to the nearest
	 * second, or an epoch Reset from a clock behind ours. From then on every reset is read a
	 * second later. Taken as stated, a request sent at a reset stated early is refused, and on a
	 * key shared by several workers each of them is at every reset (simulated, fixed window, 3
	 * workers: 13% of requests refused at 10 per 10 s, 3.8% at 60 per minute; 0.7% with this).
	 * On a window server only a spent count tells: with places left, a reset due now (a sliding
	 * log's next place freeing within the second) is no reason to wait. Counting those too, 3
	 * workers on a sliding log at 60 per minute drew twice the 429s and took 4% longer
	 * (simulated). Elsewhere any count tells: a token bucket states its next token on every
	 * answer, due now only when rounded down, tokens left or not, from the first answer on (a
	 * window server's first reset is a whole window away). Counting only spent counts, workers
	 * starting a moment after the others learnt it from a 429 at each token they tried for
	 * (simulated over loopback, 3 workers at 10 per 10 s: 5.3% of requests refused, 0.3% with
	 * this, as when rounded up; at 60 per minute 7 × 429 in 3,967 requests, none with this).
	 */
	private readResets(windows: StatedWindow[], now: number, sentAt: number): StatedWindow[] {
		const statedEarly = windows.some((window) => {
			// A window server, as any answer so far showed.
			if (window.remaining > 0 && this.refillEvidence.windowed > 0) return false;
			const due = window.resetStated === 'delta' ? now : sentAt;
			return window.resetAtMs + this.resetsLateByMs <= due;
		});
		this.answerShowedEarlyReset = statedEarly;
		if (statedEarly) {
			this.resetsLateByMs = Math.min(
				COUNT.resetLateAtMostMs,
				this.resetsLateByMs + COUNT.resetLateStepMs,
			);
		}
		if (this.resetsLateByMs === 0) return windows;
		return windows.map((window) => ({
			...window,
			resetAtMs: window.resetAtMs + this.resetsLateByMs,
		}));
	}

	/** The ms to wait before the stated windows let one more request leave (0: now). */
	wait(now: number, pending: number): number {
		this.freshAgainAfterIdle(now);
		// Waiting for a moment while a request is on the way: its answer may change the count.
		const waitFor = (at: number) => (this.inFlight > 0 ? POLL_MS : Math.ceil(at - now));
		let wait = 0;
		for (const window of this.stated) {
			if (now >= window.resetAtMs) {
				// Reset: one request at a time until an answer states the new remaining.
				if (this.inFlight > 0) wait = Math.max(wait, POLL_MS);
				else if (window.remaining <= this.leftToOthers(window) && this.sharedWithOthers(now)) {
					wait = Math.max(wait, this.ownPlaceWait(now, window.resetAtMs));
				}
				continue;
			}
			// Above the credential's limit, the surplus is not ours to spend.
			const credentialLimit = this.credentialLimit / this.windowScale(window);
			const surplus = Math.max(0, (window.limit ?? 0) - credentialLimit);
			const remaining = window.remaining - surplus - this.othersSinceLastAnswer(now);
			const spreadAt = this.firstPlacesSpreadAt(window);
			if (remaining >= 1 && spreadAt > now) {
				wait = Math.max(wait, waitFor(spreadAt));
				continue;
			}
			if (this.mayClaim(remaining, window, now, pending)) continue;
			const lastPlacesAt = remaining >= 1 ? this.lastPlacesAt(remaining, pending) : Infinity;
			const heldUntil = this.freshHoldUntil(remaining, window);
			const ownersTurn = this.ownersTurnUntil();
			const until = Math.min(
				Math.max(heldUntil, lastPlacesAt),
				window.resetAtMs,
				ownersTurn > now ? ownersTurn : Infinity,
			);
			wait = Math.max(wait, waitFor(until));
		}
		this.waitingUntil = now + wait;
		return wait;
	}

	/**
	 * What the others may have taken since our last answer, at their share of a fully used key:
	 * a count we read a while ago (before our run ended, say) is not what is left now.
	 */
	private othersSinceLastAnswer(now: number): number {
		const limit = this.statedLimit();
		const share = this.share();
		const sinceMs = now - this.lastAnswerAt;
		// Alone, or no answer yet (sinceMs Infinity): nothing the others took.
		if (limit === undefined || share >= 1 || !Number.isFinite(sinceMs)) return 0;
		if (sinceMs < COUNT.staleCountMs) return 0;
		return Math.floor((sinceMs * (1 - share) * limit) / this.statedWindowMs());
	}

	/**
	 * This process's share of the stated count: 1 while nobody else spends from it. What the
	 * count dropped since the last reset beyond our answers and requests in flight is spent
	 * by others too, so a second client is noticed within the first window.
	 */
	share(): number {
		const { ours, highest, lowest } = this.counted;
		const othersNow = ours === 0 ? 0 : Math.max(0, highest - lowest + 1 - ours - this.inFlight);
		const us = this.spentByUs + ours;
		const total = us + this.spentByOthers + othersNow;
		return total === 0 ? 1 : us / total;
	}

	/**
	 * A stated reset in whole seconds is up to a second late (an epoch Reset names the next whole
	 * second, a delta is rounded up), and a lone worker waiting for it loses that second in every
	 * window: on a server that counts from each window's first request, the loss adds up (10
	 * requests per 10 s: 0.92 of the fastest time). Our own requests bound it: alone, the count
	 * holds our newest places, and the oldest of those frees a window after its answer at the
	 * latest, as does the window of a window server that began before it (taking the longest
	 * window the credential and the stated limit allow). A steady refill comes at the next tick of
	 * the bucket's own clock, started when our request found it full, and one refill after this
	 * answer at the latest. Only alone: shared, what frees may be taken by others first.
	 */
	private boundReset(window: StatedWindow, now: number): StatedWindow {
		if (this.sharedWithOthers(now)) return window;
		const heldMs = this.longestWindowMs(window);
		let bound: number;
		if (this.refillsSteadily()) {
			if (window.limit === undefined) return window;
			const refillMs = heldMs / window.limit;
			bound = now + refillMs;
			// The refills come one refill apart from when the bucket was last full, whatever we sent.
			if (this.fullBucketTakenAt > -Infinity) {
				const refills = Math.floor((now - this.fullBucketTakenAt) / refillMs) + 1;
				bound = Math.min(bound, this.fullBucketTakenAt + refills * refillMs);
			}
		} else {
			// The count holds the newest `limit − remaining` of our places: this answer's, maybe
			// some of our others still on the way, then the newest of those answered.
			const oursOnTheWay = this.inFlight - 1;
			const counted = window.limit === undefined ? 0 : window.limit - window.remaining;
			const holds = Math.max(1, counted - oursOnTheWay);
			const held = [now, ...this.answeredSince(now - heldMs)].sort((a, b) => b - a).slice(0, holds);
			bound = Math.min(...held) + heldMs;
		}
		return bound < window.resetAtMs ? { ...window, resetAtMs: bound } : window;
	}

	/**
	 * At each stated reset: how much of what the server counted since the last one was ours.
	 * The rest, other clients (other n8n workers) spent from the same key.
	 */
	private learnShare(now: number): void {
		const { ours, highest, lowest } = this.counted;
		this.counted = { ours: 0, highest: -Infinity, lowest: Infinity };
		if (ours === 0) return;
		const others = Math.max(0, highest - lowest + 1 - ours);
		this.sawOthers(others, now);
		const kept = COUNT.shareMemory ** ours;
		this.spentByUs = this.spentByUs * kept + ours;
		this.spentByOthers = this.spentByOthers * kept + others;
	}

	/**
	 * After the stated count ran out, with others on the key: the ms until one of our own places
	 * frees (0: one has, or we hold none and may try for one).
	 */
	private ownPlaceWait(now: number, resetAtMs: number): number {
		const next =
			this.places.length === 0
				? undefined
				: Math.min(...this.places.map((place) => this.placeFreesAt(place)));
		// Holding none, we try for a freed place once those whose places freed had their turn. On
		// a steady refill each refill is someone's place: after each 429 that found them all taken,
		// we let twice as many refills pass (up to a window). On a window server, refused, we go at
		// the reset with the others: their places were all taken again before our turn came.
		if (next === undefined) {
			const windowMs = this.statedWindowMs();
			const refillMs = windowMs / (this.statedLimit() ?? 1);
			const refusals = this.refillsSteadily() ? this.placelessRefusals : 0;
			const passed = Math.min(windowMs, (2 ** refusals - 1) * refillMs);
			const refusedOnWindows = !this.refillsSteadily() && this.placelessRefusals > 0;
			const roundTrips = refusedOnWindows ? 0 : COUNT.placelessWaitRoundTrips;
			const after = resetAtMs + passed + roundTrips * this.roundTripMs();
			return Math.max(0, Math.ceil(after - now));
		}
		return next <= now ? 0 : Math.ceil(next - now);
	}

	private giveUpFreedPlaces(now: number): void {
		this.places = this.places.filter((place) => this.placeFreesAt(place) > now);
	}

	/**
	 * When one of our places frees: a stated window after its answer; on a server that refills
	 * steadily (a token bucket), sooner: the places taken refill one at a time, oldest first, from
	 * the reset its answer stated, so ours is the refill after those taken before it. After a burst
	 * every worker on the key then takes its turn at each refill, instead of all waiting a window.
	 * On a fixed window, at the reset its answer stated, with everyone else's.
	 */
	private placeFreesAt(place: Place): number {
		const windowMs = this.statedWindowMs();
		const afterWindow = place.answeredAt + windowMs;
		const limit = this.statedLimit();
		if (this.refillEvidence.whole) return Math.min(afterWindow, place.resetAtMs);
		if (!this.refillsSteadily() || limit === undefined) return afterWindow;
		const takenBefore = Math.max(0, limit - place.remaining - 1);
		return Math.min(afterWindow, place.resetAtMs + (takenBefore * windowMs) / limit);
	}

	/**
	 * Each answer tells how the server refills: a token bucket states its next refill, at most a
	 * window ÷ limit away; a window server states the end of the window or of its oldest place,
	 * a whole window away on a fresh key and seldom as close as that.
	 */
	private weighRefill(window: StatedWindow, now: number): void {
		if (window.limit === undefined) return;
		const oneRefillMs = this.longestWindowMs(window) / window.limit;
		// Resets come in whole seconds: finer refills cannot be told apart (nor timed).
		if (oneRefillMs < 1000) return;
		// A stated reset may be rounded up to the next whole second.
		if (window.resetAtMs - now <= oneRefillMs + 1000 + COUNT.minRoundTripMs)
			this.refillEvidence.steady++;
		else this.refillEvidence.windowed++;
	}

	/**
	 * A window server that frees its whole count at the reset (a fixed window), rather than each
	 * place a window after it was taken (a sliding log): the first answer after a reset shows free
	 * a place of ours that a sliding log would still count, one whose request left less than the
	 * shortest plausible window before this answer (the server counted it after it left). Judged
	 * by when its answer came, an answer held up on the way would make an older place look recent.
	 * There our places free at the reset their answers stated.
	 */
	private weighWholeRefill(window: StatedWindow, now: number): void {
		if (window.limit === undefined || this.refillsSteadily()) return;
		const countedFrom = now - this.statedWindowMs();
		const stillCounted = this.accepted.filter((request) => request.sentAt > countedFrom).length;
		// The count holds this request too.
		if (window.limit - window.remaining - 1 < stillCounted) this.refillEvidence.whole = true;
	}

	/**
	 * A window server's count starts at its limit: what our first answer in a stated window shows
	 * taken beyond our own requests (those on the way, and those answered within a window), others
	 * took. Not on a token bucket, whose count may start below its limit (its burst), nor before an
	 * answer has shown which the server is.
	 */
	private countOthersBeforeUs(window: StatedWindow, now: number): void {
		if (window.limit === undefined || this.refillEvidence.windowed === 0) return;
		// Ours still held when the server counted, a round trip ago or so; one place of slack for
		// one of ours that freed just then.
		const countedAt = now - 2 * this.roundTripMs();
		const heldMs = this.longestWindowMs(window);
		const ours = this.inFlight + this.answeredSince(countedAt - heldMs).length;
		const others = Math.max(0, window.limit - window.remaining - ours - 1);
		this.spentByOthers += others;
		this.sawOthers(others, now);
	}

	/**
	 * On a steadily refilled count every answer falls in a new stated window, so the drops within
	 * one never show the others: between two of our answers, they took what refilled since the
	 * first and is not left, less our own request.
	 */
	private countOthersBetweenRefills(window: StatedWindow, now: number): void {
		const previous = this.answered;
		if (!this.refillsSteadily() || window.limit === undefined || this.inFlight !== 1) return;
		// Refills counted at the longest plausible window: never more than came.
		const refillMs = this.longestWindowMs(window) / window.limit;
		const refills = Math.floor((now - previous.answeredAt) / refillMs);
		// The bucket holds at most the largest count we have seen: a lone worker on a bucket whose
		// burst is below its limit, back after an idle hour, must not count the difference as others.
		const available = Math.min(this.largestCount, previous.remaining + refills);
		const others = Math.max(0, available - window.remaining - 1);
		this.spentByOthers += others;
		this.sawOthers(others, now);
	}

	/**
	 * The longest the stated window may be: as stated, else the credential's window (a key limited
	 * below the credential in the same minute) or the stated limit at the credential's rate (a
	 * server with shorter windows), whichever is longer. Bounds from it are never early.
	 */
	/** The longest any of the stated windows may be (`longestWindowMs`). */
	private longestStatedWindowMs(): number {
		return Math.max(...this.stated.map((window) => this.longestWindowMs(window)));
	}

	private longestWindowMs(window: StatedWindow): number {
		return window.windowMs ?? Math.max(this.windowMs, this.statedWindowMs());
	}

	private refillsSteadily(): boolean {
		const { steady, windowed } = this.refillEvidence;
		return steady > 0 && windowed === 0;
	}

	private statedLimit(): number | undefined {
		const limits = this.stated.map((w) => w.limit).filter((l): l is number => l !== undefined);
		return limits.length === 0 ? undefined : Math.min(...limits);
	}

	private roundTripMs(): number {
		return Math.max(this.lastRoundTripMs, COUNT.minRoundTripMs);
	}

	/** Whether others spend from this key: the count drops faster than we spend, or a 429 came. */
	private sharedWithOthers(now: number): boolean {
		const sinceRefused = now - this.refusedAt;
		return this.share() < 1 || sinceRefused < COUNT.sharedMemoryWindows * this.statedWindowMs();
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
		const fresh =
			this.statedAnswers < COUNT.freshKeyAnswers || now < this.firstStatedAt + COUNT.freshKeyMs;
		if (fresh && this.inFlight > 0) return false;
		if (now < this.freshHoldUntil(remaining, window)) return false;
		if (this.share() >= 1) {
			// The last places one at a time: an answer then shows whether someone else took one.
			if (this.inFlight > 0 && remaining - this.inFlight <= this.closingPlaces(window)) {
				return false;
			}
			return remaining - this.inFlight >= COUNT.claimFrom;
		}
		if (this.inFlight > 0) return false;
		if (remaining > Math.max(this.closingPlaces(window), this.othersOnTheWay())) {
			return now >= this.ownersTurnUntil();
		}
		return remaining >= 1 && now >= this.lastPlacesAt(remaining, pending);
	}

	/**
	 * On a sliding log shared with others, until when the places an answer showed freeing are
	 * their owners' to take again (-Infinity: no such places, or another kind of server). An owner
	 * knows when its own place frees and goes for it then; a process claiming them at once left
	 * owners short, and a process short of places stays short, as a place comes back only to its
	 * owner (simulated, starts 0, 30 and 200 ms apart: 0.913 of fastest, 0.973 now).
	 */
	private ownersTurnUntil(): number {
		if (this.refills() !== 'by windows' || this.share() >= 1) return -Infinity;
		return this.freedSeenAt + COUNT.ownersTurnRoundTrips * this.roundTripMs();
	}

	/**
	 * A process back on the key after a while without asking (its run ended, the next one starts)
	 * takes it as a fresh key: the other workers may be starting their runs too, and it may have
	 * forgotten them (`forgetOthersWhenQuiet`). Its first window is spread and its first answers
	 * taken one at a time again. Simulated, 3 workers over loopback running 20 leads each again a
	 * minute after their first run, 10 per 10 s: on a token bucket 9.2% of the second run's
	 * requests refused, 0 with this; sliding log 3.5% → 1.0%; fixed window 4.3% → 0.7%.
	 */
	private freshAgainAfterIdle(now: number): void {
		if (this.inFlight > 0 || this.statedAnswers === 0) return;
		const idleMs = now - Math.max(this.lastAnswerAt, this.waitingUntil);
		if (idleMs <= COUNT.idleWindows * this.longestStatedWindowMs()) return;
		this.statedAnswers = 0;
		this.firstStatedAt = -Infinity;
	}

	/**
	 * On a fresh key, the places of its first window are spread over its first moments: the
	 * k-th of `limit` not before k ÷ limit of them (-Infinity: no longer fresh). Workers starting
	 * a moment apart (queue mode) then each take a fair part of it; taken all at once at loopback
	 * speed, the first worker held 7 of 10 and kept them, as each place comes back to its owner,
	 * while the others finished a window or two late (simulated, round trips of 4-12 ms, 3 workers
	 * at 10 per 10 s starting up to 0.2 s apart: 0.933 → 0.978 of fastest, 3.3% → 0.8% refused).
	 * A lone worker pays up to half a second, once per key and again after each idle spell.
	 */
	private firstPlacesSpreadAt(window: StatedWindow): number {
		if (window.limit === undefined || this.statedAnswers >= window.limit) return -Infinity;
		return this.firstStatedAt + (this.statedAnswers * COUNT.freshKeyMs) / window.limit;
	}

	/**
	 * On a fresh key, alone as far as we know: the window's last places wait until the first
	 * moments are over, so that other workers starting a moment after us find a place for their
	 * first request (which goes out blind) instead of a 429. On a token bucket also when others
	 * spend too: there each place taken in the first burst comes back to its taker at every turn,
	 * and a worker starting later holding none was refused at each try until the others finished
	 * (simulated, 0.32 s late: 4.7 of its requests refused per run, 1.0 with this). On a window
	 * server the whole window comes back at once, and holding the places cost time (0.81-0.84 of
	 * fastest on a sliding log).
	 */
	private freshHoldUntil(remaining: number, window: StatedWindow): number {
		if (remaining > this.closingPlaces(window)) return -Infinity;
		if (this.share() < 1 && !this.refillsSteadily()) return -Infinity;
		return this.firstStatedAt + COUNT.freshKeyMs;
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
				: this.closingSince + COUNT.closingWaitRoundTrips * roundTrip;
		const ending =
			pending <= remaining
				? this.lastAnswerAt + (COUNT.endOfRunWaitRoundTrips + remaining) * roundTrip
				: Infinity;
		return Math.min(closing, ending);
	}

	/**
	 * Of the count our last answer stated, how many were the others' to take by the reset: those
	 * they may have had on the way, and on a token bucket the last places unless we closed them
	 * (on a window server the reset frees more than those).
	 */
	private leftToOthers(window: StatedWindow): number {
		const closedByOthers = this.refillsSteadily() && this.closingSince === -Infinity;
		return Math.max(this.othersOnTheWay(), closedByOthers ? this.closingPlaces(window) : 0);
	}

	/** When our accepted answers came after `from`, oldest first. */
	private answeredSince(from: number): number[] {
		return this.accepted.filter((request) => request.answeredAt > from).map((r) => r.answeredAt);
	}

	/** How many places at the end of the window are left to the process that closes it. */
	private closingPlaces(window: StatedWindow): number {
		if (window.limit === undefined) return 0;
		return Math.min(COUNT.closingPlaces, Math.floor(window.limit / 2));
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
		const share = this.share();
		if (share >= 1) return 0;
		const others = Math.ceil((1 - share) / share - COUNT.othersFromShareSlack);
		return Math.min(COUNT.othersFromShareAtMost, Math.max(1, others));
	}

	/** The least the stated windows have left, as of the latest answer. */
	private statedRemaining(): number {
		return Math.min(...this.stated.map((w) => w.remaining));
	}

	/** An answer showed others spending (or someone took what we saw left: a 429). */
	private sawOthers(count: number, now: number): void {
		if (count <= 0) return;
		this.othersSeenAt = now;
		this.answersWithoutOthers = 0;
	}

	/**
	 * Others that spent nothing for a while as our answers saw it have stopped (their runs ended):
	 * what we learnt of their share no longer holds, and we spend as if alone, whole windows and
	 * reset bounds included. If they come back, the next answers show it.
	 */
	private forgetOthersWhenQuiet(now: number): void {
		this.answersWithoutOthers++;
		if (this.spentByOthers === 0 || this.answersWithoutOthers < COUNT.quietAnswers) return;
		if (now - this.othersSeenAt < COUNT.quietWindows * this.statedWindowMs()) return;
		this.spentByOthers = 0;
	}

	/** Our window ÷ the stated window (1 when it states no length: taken as ours). */
	private windowScale(window: StatedWindow): number {
		return window.windowMs === undefined ? 1 : this.windowMs / window.windowMs;
	}
}
