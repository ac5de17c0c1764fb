/**
 * Calls: deterministic seed data, newest-first storage, and GET /v1/calls with filters and
 * cursor pagination in several response shapes (the spec leaves the shape open, so the node must
 * cope with all the common ones).
 *
 * Cursors encode the position of the last item returned (an internal, ever-increasing sequence
 * number), not an offset: calls added at the front between two page fetches therefore never
 * shift later pages, and paging neither duplicates nor skips.
 */
import { CallDirection, CallRecord, CallStatus, ListOrder, PaginationStyle } from './types';
import { detail, json, Reply } from './http';
import { ValidationErrorItem, validationError } from './leads';

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
	const direction: CallDirection = rand() < 0.55 ? 'inbound' : 'outbound';
	const roll = rand();
	const status: CallStatus = roll < 0.7 ? 'completed' : roll < 0.85 ? 'missed' : 'voicemail';
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
	/** Internal position of each call; strictly decreasing along `list`. */
	private readonly seqs = new WeakMap<CallRecord, number>();
	/** When each call's recording is ready (ms since the epoch); absent = ready. */
	private readonly recordingReadyAt = new WeakMap<CallRecord, number>();
	private nextSeq = 1;
	private nextNumber = 1;

	/** Newest first. */
	get calls(): CallRecord[] {
		return this.list;
	}

	seed(count: number): void {
		this.list = [];
		this.nextSeq = 1;
		this.nextNumber = 1;
		this.add(count);
	}

	/** `recordingReadyAt`: when the new calls' recordings are ready (default: already). */
	add(count: number, overrides: Partial<CallRecord> = {}, recordingReadyAt = 0): CallRecord[] {
		const added: CallRecord[] = [];
		let newest = this.list.length > 0 ? Date.parse(this.list[0].created_at) + 1000 : 0;
		for (let i = 0; i < count; i++) {
			const call = { ...generateCall(this.nextNumber++, newest), ...overrides };
			newest = Math.max(newest, Date.parse(call.created_at) + 1000);
			this.seqs.set(call, this.nextSeq++);
			if (recordingReadyAt > 0) this.recordingReadyAt.set(call, recordingReadyAt);
			added.push(call);
		}
		// Returned, like the list, newest first. Concat rather than unshift(...spread), which would
		// overflow the stack for the 50 000-call benchmark.
		added.reverse();
		this.list = added.concat(this.list);
		return added;
	}

	find(id: string): CallRecord | undefined {
		return this.list.find((call) => call.id === id);
	}

	/** Whether the call's recording is still being processed at `now`. */
	recordingPending(call: CallRecord, now: number): boolean {
		return (this.recordingReadyAt.get(call) ?? 0) > now;
	}

	/**
	 * One page in the listing's order, after the cursor position (`afterSeq`) or, for page-number
	 * listings, after `skip` matching calls.
	 */
	page(
		query: { afterSeq?: number; skip?: number },
		limit: number,
		filter: (call: CallRecord) => boolean,
		order: ListOrder,
	): { items: CallRecord[]; next: string | null; total: number } {
		const listed = (order === 'oldest-first' ? [...this.list].reverse() : this.list).filter(filter);
		let start = query.skip ?? 0;
		if (query.afterSeq !== undefined) {
			const after = query.afterSeq;
			// Newest first: seqs decrease along the listing; oldest first: they increase.
			start =
				order === 'oldest-first' ? this.indexAbove(listed, after) : this.indexAfter(listed, after);
		}
		const items = listed.slice(start, start + limit);
		// Only promise a next page when one really exists, so a client never fetches an empty one.
		const more = start + limit < listed.length;
		const last = items[items.length - 1];
		return {
			items,
			next: more && last ? encodeCursor(this.seqs.get(last) ?? 0) : null,
			total: listed.length,
		};
	}

	private seq(call: CallRecord): number {
		return this.seqs.get(call) ?? 0;
	}

	/** Index of the first call older than the cursor position in a newest-first listing. */
	private indexAfter(listed: CallRecord[], seq: number): number {
		let lo = 0;
		let hi = listed.length;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (this.seq(listed[mid]) < seq) hi = mid;
			else lo = mid + 1;
		}
		return lo;
	}

	/** Index of the first call newer than the cursor position in an oldest-first listing. */
	private indexAbove(listed: CallRecord[], seq: number): number {
		let lo = 0;
		let hi = listed.length;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (this.seq(listed[mid]) > seq) hi = mid;
			else lo = mid + 1;
		}
		return lo;
	}
}

function encodeCursor(seq: number): string {
	return Buffer.from(JSON.stringify({ v: 1, after: seq })).toString('base64url');
}

function decodeCursor(cursor: string): number | undefined {
	try {
		const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
		return parsed && parsed.v === 1 && Number.isInteger(parsed.after) ? parsed.after : undefined;
	} catch {
		return undefined;
	}
}

export interface ListOptions {
	style: PaginationStyle;
	order: ListOrder;
	/** The name calls carry their creation time under; null: no time field at all. */
	timeField: string | null;
	defaultPageSize: number;
	maxPageSize: number;
	pageSizeOverflow: 'clamp' | 'reject';
}

export interface ListRequest {
	path: string;
	query: Record<string, string>;
	/** Raw query string (kept to build the DRF-style / Link next URL). */
	search: URLSearchParams;
	/** `http://host:port` the client used, so next URLs are on the same origin. */
	origin: string;
}

const DIRECTIONS: CallDirection[] = ['inbound', 'outbound'];
const STATUSES: CallStatus[] = ['completed', 'missed', 'voicemail'];

function enumError(name: string, input: string, allowed: string[]): ValidationErrorItem {
	const quoted = allowed.map((v) => `'${v}'`);
	const expected = `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
	return {
		type: 'enum',
		loc: ['query', name],
		msg: `Input should be ${expected}`,
		input,
		ctx: { expected },
	};
}

/** Parses `limit` like a FastAPI `Query(ge=1, le=max)` int (with optional clamping). */
function parseLimit(raw: string | undefined, opts: ListOptions): number | ValidationErrorItem {
	if (raw === undefined) return opts.defaultPageSize;
	const loc = ['query', 'limit'];
	if (!/^\s*[+-]?\d+\s*$/.test(raw)) {
		const msg = 'Input should be a valid integer, unable to parse string as an integer';
		return { type: 'int_parsing', loc, msg, input: raw };
	}
	const limit = Number(raw);
	if (limit < 1) {
		const msg = 'Input should be greater than or equal to 1';
		return { type: 'greater_than_equal', loc, msg, input: raw, ctx: { ge: 1 } };
	}
	if (limit > opts.maxPageSize) {
		if (opts.pageSizeOverflow === 'clamp') return opts.maxPageSize;
		const msg = `Input should be less than or equal to ${opts.maxPageSize}`;
		return { type: 'less_than_equal', loc, msg, input: raw, ctx: { le: opts.maxPageSize } };
	}
	return limit;
}

/** A call as listed: its creation time under `timeField`, or no time field at all (null). */
function withTimeField(call: CallRecord, timeField: string | null): Record<string, unknown> {
	if (timeField === 'created_at') return { ...call };
	const rest: Record<string, unknown> = { ...call };
	for (const field of ['created_at', 'started_at', 'ended_at']) delete rest[field];
	return timeField === null ? rest : { ...rest, [timeField]: call.created_at };
}

export function listCalls(store: CallStore, req: ListRequest, opts: ListOptions): Reply {
	const { query } = req;
	const errors: ValidationErrorItem[] = [];
	const limit = parseLimit(query.limit, opts);
	if (typeof limit !== 'number') errors.push(limit);
	if (query.direction !== undefined && !DIRECTIONS.includes(query.direction as CallDirection)) {
		errors.push(enumError('direction', query.direction, DIRECTIONS));
	}
	if (query.status !== undefined && !STATUSES.includes(query.status as CallStatus)) {
		errors.push(enumError('status', query.status, STATUSES));
	}
	const after = query.created_after === undefined ? undefined : Date.parse(query.created_after);
	if (after !== undefined && Number.isNaN(after)) {
		const msg = 'Input should be a valid datetime';
		errors.push({
			type: 'datetime_parsing',
			loc: ['query', 'created_after'],
			msg,
			input: query.created_after,
		});
	}
	if (errors.length > 0) return validationError(errors);

	// An empty `cursor=` is treated as "first page"; anything else must be one of ours.
	let afterSeq: number | undefined;
	if (query.cursor) {
		afterSeq = decodeCursor(query.cursor);
		if (afterSeq === undefined) return detail(400, 'Invalid cursor');
	}

	const filter = (call: CallRecord): boolean =>
		(query.direction === undefined || call.direction === query.direction) &&
		(query.status === undefined || call.status === query.status) &&
		(after === undefined || Date.parse(call.created_at) > after);
	const page = Number(query.page ?? 1);
	if (opts.style === 'data-page' && (!Number.isInteger(page) || page < 1)) {
		return validationError([
			{
				type: 'int_parsing',
				loc: ['query', 'page'],
				msg: 'Input should be a valid integer',
				input: query.page,
			},
		]);
	}
	const found = store.page(
		opts.style === 'data-page' ? { skip: (page - 1) * (limit as number) } : { afterSeq },
		limit as number,
		filter,
		opts.order,
	);
	const items = found.items.map((call) => withTimeField(call, opts.timeField));
	const next = found.next;

	const nextUrl = (): string => {
		const params = new URLSearchParams(req.search);
		params.set('cursor', next as string);
		return `${req.origin}${req.path}?${params.toString()}`;
	};
	switch (opts.style) {
		case 'items-nextCursor':
			return json(200, { items, nextCursor: next });
		case 'calls-next-token':
			return json(200, { calls: items, next });
		case 'results-next-url':
			return json(200, { results: items, next: next === null ? null : nextUrl() });
		case 'data-page': {
			const pages = Math.max(1, Math.ceil(found.total / (limit as number)));
			return json(200, { data: items, page, pages, total: found.total });
		}
		case 'array-link-header':
			return json(200, items, next === null ? {} : { Link: `<${nextUrl()}>; rel="next"` });
		default:
			return json(200, { data: items, next_cursor: next });
	}
}
