/**
 * GET /v1/calls with filters and cursor pagination in several response shapes (the spec leaves
 * the shape open, so the node must cope with all the common ones).
 *
 * Cursors encode the position of the last item returned (an internal, ever-increasing sequence
 * number), not an offset: calls added at the front between two page fetches therefore never
 * shift later pages, and paging neither duplicates nor skips.
 */
import { CallDirection, CallRecord, CallStatus, ListOrder, PaginationStyle } from './types';
import { CallStore, decodeCursor } from './calls';
import { detail, json, Reply } from './http';
import { ValidationErrorItem, validationError } from './leads';

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
