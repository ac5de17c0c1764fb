import { createHash } from 'crypto';

/**
 * Client-side pacing: requests for one API key leave at evenly spaced slots of
 * 60 000 / requestsPerMinute ms. Even spacing is the one schedule that stays under the
 * limit whatever algorithm the server uses (sliding log, fixed window or token bucket with
 * any burst), while still using the whole budget. A small margin absorbs network jitter.
 */
const SPACING_MARGIN = 1.02;

export class RequestPacer {
	private nextSlotAt = 0;

	constructor(private intervalMs: number) {}

	setRequestsPerMinute(requestsPerMinute: number): void {
		this.intervalMs = intervalFor(requestsPerMinute);
	}

	/** Reserves the next free slot and returns how long to wait for it. Synchronous, so two callers never get the same slot. */
	reserveSlot(nowMs: number): number {
		const slot = Math.max(nowMs, this.nextSlotAt);
		this.nextSlotAt = slot + this.intervalMs;
		return slot - nowMs;
	}

	/** After a 429 the server told us when to come back: nobody using this key goes before then. */
	pauseUntil(atMs: number): void {
		this.nextSlotAt = Math.max(this.nextSlotAt, atMs);
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
