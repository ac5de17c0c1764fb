/**
 * GET /v1/calls with filters and pagination in several response shapes (the spec leaves the
 * shape open, so the node must cope with all the common ones).
 */
import { CallStore, decodeCursor } from './calls';
import { detail, json, Reply } from './http';
import { ValidationErrorItem, validationError } from './leads';
import type { ResolvedOptions } from './options';
import { CallRecord } from './types';

const ENUMS: Record<string, string[]> = {
	direction: ['inbound', 'outbound'],
	status: ['completed', 'missed', 'voicemail'],
};

/** A problem with query parameter `name`, as pydantic words it. */
const invalid = (
	name: string,
	type: string,
	msg: string,
	input?: string,
	ctx?: Record<string, unknown>,
): ValidationErrorItem => ({
	type,
	loc: ['query', name],
	msg: `Input should be ${msg}`,
	input,
	...(ctx ? { ctx } : {}),
});

/** Parses `limit` like a FastAPI `Query(ge=1, le=max)` int (with optional clamping). */
function parseLimit(raw: string | undefined, opts: ResolvedOptions): number | ValidationErrorItem {
	if (raw === undefined) return opts.defaultPageSize;
	if (!/^\s*[+-]?\d+\s*$/.test(raw))
		return invalid(
			'limit',
			'int_parsing',
			'a valid integer, unable to parse string as an integer',
			raw,
		);
	const limit = Number(raw);
	if (limit < 1)
		return invalid('limit', 'greater_than_equal', 'greater than or equal to 1', raw, { ge: 1 });
	if (limit <= opts.maxPageSize) return limit;
	if (opts.pageSizeOverflow === 'clamp') return opts.maxPageSize;
	const le = opts.maxPageSize;
	return invalid('limit', 'less_than_equal', `less than or equal to ${le}`, raw, { le });
}

/** A call as listed: its creation time under `timeField`, or no time field at all (null). */
function withTimeField(call: CallRecord, timeField: string | null): Record<string, unknown> {
	if (timeField === 'created_at') return { ...call };
	const rest: Record<string, unknown> = { ...call };
	for (const field of ['created_at', 'started_at', 'ended_at']) delete rest[field];
	return timeField === null ? rest : { ...rest, [timeField]: call.created_at };
}

export function listCalls(
	store: CallStore,
	url: URL,
	host: string | undefined,
	opts: ResolvedOptions,
): Reply {
	const query = Object.fromEntries(url.searchParams);
	const limit = parseLimit(query.limit, opts);
	const errors = typeof limit === 'number' ? [] : [limit];
	for (const [name, allowed] of Object.entries(ENUMS)) {
		if (query[name] === undefined || allowed.includes(query[name])) continue;
		const expected = `'${allowed.slice(0, -1).join("', '")}' or '${allowed[allowed.length - 1]}'`;
		errors.push(invalid(name, 'enum', expected, query[name], { expected }));
	}
	const after = query.created_after === undefined ? undefined : Date.parse(query.created_after);
	if (Number.isNaN(after))
		errors.push(
			invalid('created_after', 'datetime_parsing', 'a valid datetime', query.created_after),
		);
	if (errors.length > 0) return validationError(errors);
	const style = opts.paginationStyle;
	const byPage = ['data-page', 'data-current_page', 'data-next_page_url'].includes(style);
	const page = Number(query.page ?? 1);
	const skip = Number(query.skip ?? 0);
	if (byPage && (!Number.isInteger(page) || page < 1))
		return validationError([invalid('page', 'int_parsing', 'a valid integer', query.page)]);
	if (style === 'array-skip' && (!Number.isInteger(skip) || skip < 0))
		return validationError([invalid('skip', 'int_parsing', 'a valid integer', query.skip)]);

	// An empty `cursor=` is the first page; anything else must be one of ours.
	const afterSeq = query.cursor ? decodeCursor(query.cursor) : undefined;
	if (query.cursor && afterSeq === undefined) return detail(400, 'Invalid cursor');
	const afterId = style === 'data-has_more' ? query.starting_after : undefined;
	if (afterId !== undefined && store.find(afterId) === undefined)
		return detail(400, `No such call: '${afterId}'`);
	const size = limit as number;
	const found = store.page(
		byPage
			? { skip: (page - 1) * size }
			: style === 'array-skip'
				? { skip }
				: { afterSeq, afterId },
		size,
		(call) =>
			(query.direction ?? call.direction) === call.direction &&
			(query.status ?? call.status) === call.status &&
			(after === undefined || Date.parse(call.created_at) > after),
		opts.listOrder,
	);
	const items = found.items.map((call) => withTimeField(call, opts.callTimeField));
	const { next } = found;
	// On the origin the client used, so that it follows it with its key.
	const origin = host ? `http://${host}` : url.origin;
	const nextUrl = (): string => {
		const params = new URLSearchParams(url.searchParams);
		params.set('cursor', next!);
		return `${origin}${url.pathname}?${params}`;
	};
	const pageUrl = (number: number) => `${origin}${url.pathname}?page=${number}`;
	const lastPage = Math.max(1, Math.ceil(found.total / size));
	switch (style) {
		case 'data-has_more':
			return json(200, { object: 'list', data: items, has_more: next !== null });
		case 'items-next-query': {
			const params = new URLSearchParams({ cursor: next ?? '', limit: String(size) });
			return json(200, { items, next: next === null ? null : `?${params}` });
		}
		case 'data-current_page':
			return json(200, {
				current_page: page,
				data: items,
				last_page: lastPage,
				// As Laravel's paginator writes them: without the request's other parameters.
				next_page_url: page < lastPage ? pageUrl(page + 1) : null,
				per_page: size,
				total: found.total,
			});
		case 'data-next_page_url':
			return json(200, {
				current_page: page,
				data: items,
				next_page_url: page < lastPage ? pageUrl(page + 1) : null,
				per_page: size,
			});
		case 'array-skip':
			return json(200, items);
		case 'items-nextCursor':
			return json(200, { items, nextCursor: next });
		case 'calls-next-token':
			return json(200, { calls: items, next });
		case 'results-next-url':
			return json(200, { results: items, next: next === null ? null : nextUrl() });
		case 'data-page':
			return json(200, {
				data: items,
				page,
				pages: lastPage,
				total: found.total,
			});
		case 'array-link-header':
			return json(200, items, next === null ? {} : { Link: `<${nextUrl()}>; rel="next"` });
		default:
			return json(200, { data: items, next_cursor: next });
	}
}
