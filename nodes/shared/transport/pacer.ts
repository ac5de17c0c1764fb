import { createHash } from 'crypto';

/**
 * Client-side pacing: requests for one API key leave at evenly spaced slots of
 * 60 000 / requestsPerMinute ms. Even spacing is the one schedule that stays under the
 * limit whatever algorithm the server uses (sliding log, fixed window or token bucket with
 * any burst), while still using the whole budget. A small margin absorbs network jitter.
 */
const SPACING_MARGIN = 1.02;
/**
 * Extra room after the first request of an idle key: it opens a connection and warms up n8n's
 * HTTP code, so it reaches the server 20-30 ms later than the requests after it (measured in
 * n8n 2.40.7), more than the 2% margin at 60/min. Costs 50 ms once per burst of work.
 */
const COLD_START_MS = 50;

export class RequestPacer {
	private nextSlotAt = 0;
	private lastDepartureAt = -Infinity;
	private pausedUntil = 0;

	constructor(private intervalMs: number) {}

	setRequestsPerMinute(requestsPerMinute: number): void {
		this.intervalMs = intervalFor(requestsPerMinute);
	}

	/** Reserves the next free slot and returns how long to wait for it. Synchronous, so two callers never get the same slot. */
	reserveSlot(nowMs: number): number {
		const idle = this.nextSlotAt <= nowMs;
		const slot = Math.max(nowMs, this.nextSlotAt);
		this.nextSlotAt = slot + this.intervalMs + (idle && this.intervalMs > 0 ? COLD_START_MS : 0);
		return slot - nowMs;
	}

	/**
	 * Called when a request's slot has come; returns how much longer it must wait. A slot is
	 * reserved well ahead (several items wait at once), and by the time it comes a 429 may
	 * have paused the key, or the previous request may have left late (a blocked event loop):
	 * leaving on time would then break the pause or the spacing. Synchronous, like reserveSlot,
	 * so concurrent requests still leave one interval apart.
	 */
	depart(nowMs: number): number {
		const at = Math.max(nowMs, this.lastDepartureAt + this.intervalMs, this.pausedUntil);
		this.lastDepartureAt = at;
		return at - nowMs;
	}

	/** After a 429 the server told us when to come back: nobody using this key goes before then. */
	pauseUntil(atMs: number): void {
		this.nextSlotAt = Math.max(this.nextSlotAt, atMs);
		this.pausedUntil = Math.max(this.pausedUntil, atMs);
	}
}

function intervalFor(requestsPerMinute: number): number {
	return requestsPerMinute > 0 ? (60_000 / requestsPerMinute) * SPACING_MARGIN : 0;
}

/**
 * One pacer per API key for the whole n8n process, so every node and execution using the
 * key shares one budget. Keyed by a hash so the key itself is never kept here.
 */
const pacersByKeyHash = new Map<string, RequestPacer>();

export function pacerForKey(apiKey: string, requestsPerMinute: number): RequestPacer {
	const keyHash = createHash('sha256').update(apiKey).digest('hex');
	let pacer = pacersByKeyHash.get(keyHash);
	if (pacer === undefined) {
		pacer = new RequestPacer(intervalFor(requestsPerMinute));
		pacersByKeyHash.set(keyHash, pacer);
	} else {
		pacer.setRequestsPerMinute(requestsPerMinute);
	}
	return pacer;
}
