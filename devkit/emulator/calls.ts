/**
 * Calls: deterministic seed data and newest-first storage; GET /v1/calls is in calls-list.ts.
 * A cursor holds the number of the last call returned, not an offset: calls added between two
 * page fetches never shift later pages, so paging neither duplicates nor skips.
 */
import { CallRecord, ListOrder } from './types';

const SEED_EPOCH = Date.UTC(2025, 0, 1);
const CALL_SPACING_MS = 10 * 60_000;
const OUR_NUMBER = '+14155550100';

/** mulberry32: tiny seeded PRNG, so call N has the same fields in every run. */
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Call number n, generated from n alone; `notBefore` keeps the list strictly time-ordered. */
export function generateCall(n: number, notBefore = 0): CallRecord {
	const rand = prng(Math.imul(n, 2654435761));
	const created = Math.max(
		SEED_EPOCH + n * CALL_SPACING_MS + Math.floor(rand() * CALL_SPACING_MS * 0.5),
		notBefore,
	);
	const direction: CallRecord['direction'] = rand() < 0.55 ? 'inbound' : 'outbound';
	const roll = rand();
	const status: CallRecord['status'] =
		roll < 0.7 ? 'completed' : roll < 0.85 ? 'missed' : 'voicemail';
	const talk = 20 + Math.floor(rand() * 900);
	const duration = status === 'completed' ? talk : status === 'voicemail' ? 10 + (talk % 80) : 0;
	const customer = `+1415555${String(Math.floor(rand() * 10_000)).padStart(4, '0')}`;
	const leadRoll = rand();
	const leadId = leadRoll < 0.6 ? `lead_${1 + Math.floor(rand() * 500)}` : null;
	// Most calls have a recording; missed calls never do, and 1 in 10 completed calls was not recorded.
	const hasRecording = status === 'voicemail' || (status === 'completed' && rand() >= 0.1);
	return {
		id: `call_${String(n).padStart(6, '0')}`,
		created_at: new Date(created).toISOString(),
		started_at: new Date(created).toISOString(),
		ended_at: new Date(created + duration * 1000).toISOString(),
		duration_seconds: duration,
		direction,
		from_e164: direction === 'inbound' ? customer : OUR_NUMBER,
		to_e164: direction === 'inbound' ? OUR_NUMBER : customer,
		status,
		lead_id: leadId,
		has_recording: hasRecording,
	};
}

export class CallStore {
	private list: CallRecord[] = [];
	/** Each call's number, its position for cursors (ids may be overridden): decreasing along `list`. */
	private readonly seqs = new WeakMap<CallRecord, number>();
	/** When each call's recording is ready (ms since the epoch); absent = ready. */
	private readonly recordingReadyAt = new WeakMap<CallRecord, number>();
	private nextNumber = 1;

	/** Newest first. */
	get calls(): CallRecord[] {
		return this.list;
	}

	seed(count: number): void {
		this.list = [];
		this.nextNumber = 1;
		this.add(count);
	}

	/**
	 * `recordingReadyAt`: when the new calls' recordings are ready (default: already).
	 * `listedLate`: see `addLate`.
	 */
	add(
		count: number,
		overrides: Partial<CallRecord> = {},
		recordingReadyAt = 0,
		listedLate = false,
	): CallRecord[] {
		if (listedLate) return this.addLate(count, overrides, recordingReadyAt);
		const added: CallRecord[] = [];
		let newest = this.list.length > 0 ? Date.parse(this.list[0].created_at) + 1000 : 0;
		for (let i = 0; i < count; i++) {
			const call = { ...generateCall(this.nextNumber, newest), ...overrides };
			newest = Math.max(newest, Date.parse(call.created_at) + 1000);
			this.seqs.set(call, this.nextNumber++);
			if (recordingReadyAt > 0) this.recordingReadyAt.set(call, recordingReadyAt);
			added.push(call);
		}
		// Returned, like the list, newest first. Concat rather than unshift(...spread), which would
		// overflow the stack for the 50 000-call benchmark.
		added.reverse();
		this.list = added.concat(this.list);
		return added;
	}

	/**
	 * Calls listed where their `created_at` sorts (after calls of the same time), not at the front:
	 * a call stamped when it started but listed when it ended, after shorter, later calls. Each
	 * one's cursor number lies between its neighbours', so cursors still never shift; page numbers
	 * do. Returned newest first.
	 */
	private addLate(
		count: number,
		overrides: Partial<CallRecord>,
		recordingReadyAt: number,
	): CallRecord[] {
		const added: CallRecord[] = [];
		for (let i = 0; i < count; i++) {
			const call = { ...generateCall(this.nextNumber++), ...overrides };
			if (recordingReadyAt > 0) this.recordingReadyAt.set(call, recordingReadyAt);
			const at = Date.parse(call.created_at);
			let index = this.list.findIndex((listed) => Date.parse(listed.created_at) < at);
			if (index === -1) index = this.list.length;
			const above = index > 0 ? (this.seqs.get(this.list[index - 1]) ?? 0) : this.nextNumber;
			const below = index < this.list.length ? (this.seqs.get(this.list[index]) ?? 0) : 0;
			this.seqs.set(call, (above + below) / 2);
			this.list.splice(index, 0, call);
			added.push(call);
		}
		return added.sort((a, b) => this.list.indexOf(a) - this.list.indexOf(b));
	}

	find(id: string): CallRecord | undefined {
		return this.list.find((call) => call.id === id);
	}

	/** Whether the call's recording is still being processed at `now`. */
	recordingPending(call: CallRecord, now: number): boolean {
		return (this.recordingReadyAt.get(call) ?? 0) > now;
	}

	/**
	 * One page in the listing's order, after the cursor position (`afterSeq`), after the call
	 * `afterId` (Stripe's `starting_after`) or, for page-number listings, after `skip` matching calls.
	 */
	page(
		query: { afterSeq?: number; afterId?: string; skip?: number },
		limit: number,
		filter: (call: CallRecord) => boolean,
		order: ListOrder,
	): { items: CallRecord[]; next: string | null; total: number } {
		const listed = (order === 'oldest-first' ? [...this.list].reverse() : this.list).filter(filter);
		const seq = (call: CallRecord): number => this.seqs.get(call) ?? 0;
		// Seqs decrease along a newest-first listing, increase along an oldest-first one: a binary
		// search finds the first call past the cursor.
		const past = (call: CallRecord, after: number): boolean =>
			order === 'oldest-first' ? seq(call) > after : seq(call) < after;
		let start = query.skip ?? 0;
		if (query.afterId !== undefined) {
			const after = this.find(query.afterId);
			query = { afterSeq: after === undefined ? undefined : seq(after) };
		}
		if (query.afterSeq !== undefined) {
			let hi = listed.length;
			while (start < hi) {
				const mid = (start + hi) >>> 1;
				if (past(listed[mid], query.afterSeq)) hi = mid;
				else start = mid + 1;
			}
		}
		const items = listed.slice(start, start + limit);
		// Only promise a next page when one really exists, so a client never fetches an empty one.
		const more = start + limit < listed.length;
		const next = more && items.length > 0 ? encodeCursor(seq(items[items.length - 1])) : null;
		return { items, next, total: listed.length };
	}
}

/** A list cursor: the sequence number of the last call returned (a call listed late: a fraction). */
export function encodeCursor(seq: number): string {
	return Buffer.from(JSON.stringify({ v: 1, after: seq })).toString('base64url');
}

export function decodeCursor(cursor: string): number | undefined {
	try {
		const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
		return parsed?.v === 1 && Number.isFinite(parsed.after) ? parsed.after : undefined;
	} catch {
		return undefined;
	}
}
