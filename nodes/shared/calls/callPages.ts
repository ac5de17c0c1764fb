import type { IDataObject, INode } from 'n8n-workflow';

import type { RequestContext } from '../context';
import type { ApiOperation, ApiRequest, RequestPolicy } from '../transport';
import { apiRequest } from '../transport';
import {
	MAINTAINERS,
	operationError,
	serverMessage,
	statusOf,
	toNodeError,
	validationDetailsOf,
} from '../errors';
import type { NextPage, Page } from './pagination';
import { readPage } from './pagination';

const LIST_PATH = '/v1/calls';

/** The largest page size APIs of this kind commonly accept; asking for more risks a 422. */
export const MAX_PAGE_SIZE = 100;

export interface CallPagesOptions {
	/** The user's own filters, sent with every page request. */
	query: IDataObject;
	/** How many more calls the caller wants; called before each request. 0 ends the list. */
	wanted: () => number;
	policy: RequestPolicy;
	/** Where to start: a page request remembered from an earlier walk. Default: the first page. */
	from?: NextPage;
}

/** One page of calls, with the request that fetched it (undefined: the first page). */
export interface CallPage {
	calls: IDataObject[];
	request: NextPage;
	/** The request for the page after this one; undefined: the list ends here. */
	next?: NextPage;
	/**
	 * How many of `calls` the page listed ahead of a call an earlier page already gave: on a
	 * newest-first list paged by number, calls that arrived during the walk and pushed it on.
	 */
	arrivedDuringWalk: number;
}

/** What a walk through the list remembers to decide where it goes next. */
interface WalkState {
	/** Calls listed so far, counting from offset 0 (for lists paged by `offset` alone). */
	listed: number;
	/** Requests already made, so a list that points back to itself ends instead of looping. */
	requested: Set<string>;
	/** The last request probed a bare list: at which call, and whether the page before was full. */
	probe?: { at: number; afterFull: boolean };
}

/** A walk that cannot go on although the list may hold more calls: why, and what to set. */
export interface DeadEnd {
	deadEnd: string;
	advice: string;
}

/** What fetched the page: its request (undefined: the first page), its size, its new calls. */
export interface Asked {
	request?: NextPage;
	limit: number;
	freshCalls: number;
}

const deadEnd = (why: string, at: number): DeadEnd => ({
	deadEnd: `The node cannot reach the calls after the first ${at}: ${why}`,
	advice: `Narrow the list with Query Parameters the service documents (for example created_after) so that it fits in one page, or in Get Many Calls set Limit to ${at} or less. Please report how the service pages its calls list to ${MAINTAINERS}.`,
});

/**
 * The one decision of where a walk through the calls list goes after `page`, or after a probe
 * the service `refused` (400 or 422):
 * 1. the page's own hint: a cursor, a next link (a query-only one, `?…`, relative to the
 *    request's path), a Link header, page or offset counters;
 * 2. `has_more: true` without a cursor (Stripe): the page after the last call,
 *    `starting_after=<its id>`; with no id to start after, or when the service answers that
 *    with calls already listed, a dead end;
 * 3. a bare list (no hint on its first page, nor on the probes that follow; the last page of a
 *    paged list has none either): a probe for the calls after those listed, under both common
 *    names, `offset` and `skip` (FastAPI's tutorial), after every non-empty page, short ones
 *    too: a service that caps pages silently below the size asked makes a page look short.
 *    An empty answer ends the list. An answer with no new call, or a refusal, means the
 *    service ignores the probe: after a short page (or one longer than asked: the service
 *    ignores `limit`) the first page was the whole list, as from a service that lists
 *    everything at once; after a page of exactly the size asked the rest is out of reach: a
 *    dead end rather than a silent cut. Cost: one request more than the pages, per listing;
 * 4. otherwise, or when the list repeats a request, the end (undefined).
 * A dead end fails the walk only if its caller wants more calls.
 */
export function nextRequest(
	state: WalkState,
	page: Page | 'refused',
	asked: Asked,
): NextPage | DeadEnd {
	const probe = state.probe;
	state.probe = undefined;
	if (page === 'refused')
		return probe?.afterFull ? deadEnd('the service refused offset and skip', probe.at) : undefined;
	state.listed += page.records.length;
	let next = page.next;
	if (next && 'url' in next && next.url.startsWith('?')) {
		const path = asked.request && 'url' in asked.request ? asked.request.url : LIST_PATH;
		next = { url: `${path.replace(/[?#].*$/, '')}${next.url}` };
	}
	if (next === undefined && page.more) {
		const last = page.records[page.records.length - 1];
		const id = last === undefined ? undefined : idOf(last);
		if (id === undefined)
			return deadEnd('the list says it has more (has_more) but not where', state.listed);
		// Asked for the calls after one, the service listed only calls already listed.
		if (asked.request !== undefined && asked.freshCalls === 0)
			return deadEnd(
				'the service ignored starting_after and listed the same calls again',
				state.listed - page.records.length,
			);
		next = { query: { starting_after: id } };
	}
	const { request } = asked;
	const bare = request === undefined || ('query' in request && 'offset' in request.query);
	if (next === undefined && page.unpaginated && bare && page.records.length > 0) {
		if (probe !== undefined && asked.freshCalls === 0) {
			const why = 'the service ignored offset and skip and listed the same calls again';
			return probe.afterFull ? deadEnd(why, probe.at) : undefined;
		}
		state.probe = { at: state.listed, afterFull: page.records.length === asked.limit };
		next = { query: { offset: state.listed, skip: state.listed } };
	}
	if (next === undefined) return undefined;
	const marker = JSON.stringify(next);
	if (state.requested.has(marker)) return undefined;
	state.requested.add(marker);
	return next;
}

export const isDeadEnd = (next: NextPage | DeadEnd): next is DeadEnd =>
	next !== undefined && 'deadEnd' in next;

/** A walk that starts at `from` (undefined: the first page). */
function walkFrom(from: NextPage): WalkState {
	const offset = from && 'query' in from ? Number(from.query.offset) : NaN;
	const requested = new Set<string>(from === undefined ? [] : [JSON.stringify(from)]);
	return { listed: Number.isInteger(offset) && offset > 0 ? offset : 0, requested };
}

/** Listing calls, for Get Many Calls, the trigger and the editor's call list. */
export const LIST_CALLS: ApiOperation = { scope: 'calls:read', action: 'list calls' };

/**
 * The request for a page of the calls list: `/v1/calls?query`, or a next-page link with the
 * parameters of `query` it leaves out added back. Laravel's links, unless the service appends
 * them, carry only `page`: a page 2 without the user's filters and the page size lists others.
 */
function pageRequest(next: NextPage, query: IDataObject): ApiRequest {
	if (next && 'url' in next)
		return { operation: LIST_CALLS, method: 'GET', url: withQueryKept(next.url, query) };
	return {
		operation: LIST_CALLS,
		method: 'GET',
		path: LIST_PATH,
		qs: { ...query, ...next?.query },
	};
}

function withQueryKept(url: string, query: IDataObject): string {
	const hashAt = url.includes('#') ? url.indexOf('#') : url.length;
	const [head, hash] = [url.slice(0, hashAt), url.slice(hashAt)];
	const queryAt = head.indexOf('?');
	const linked = new URLSearchParams(queryAt < 0 ? '' : head.slice(queryAt + 1));
	const left = new URLSearchParams();
	for (const [name, value] of Object.entries(query))
		if (!linked.has(name)) left.append(name, String(value));
	if (left.toString() === '') return url;
	const joint = queryAt < 0 ? '?' : /[?&]$/.test(head) ? '' : '&';
	return `${head}${joint}${left.toString()}${hash}`;
}

/** A call's identifier; the spec shows no call fields, so the common spellings are accepted. */
export function idOf(record: IDataObject): string | undefined {
	const id = record.id ?? record.call_id ?? record.callId;
	return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/**
 * Yields the calls of `GET /v1/calls` page by page, following whichever next-page hint the
 * API gives (cursor, next URL, Link header; see `nextRequest`). A call already yielded is
 * never yielded again, so overlapping pages do not duplicate calls. The walk ends when the
 * caller wants no more calls (or breaks out), so no page beyond that is fetched; each page
 * names the request for the next one, so a caller that stops can resume there later.
 */
export async function* iterateCallPages(
	this: RequestContext,
	options: CallPagesOptions,
): AsyncGenerator<CallPage> {
	const seenIds = new Set<string>();
	const state = walkFrom(options.from);
	let maxPageSize = MAX_PAGE_SIZE;
	let next: NextPage = options.from;
	/** The size of the pages fetched so far. */
	let pageLimit: number | undefined;

	for (;;) {
		// Page numbers count in pages of the first page's size, and so may a next link that leaves
		// the size out: keep it for the whole walk. A walk resumed there asks what its caller asks.
		const keepsSize = next !== undefined && ('url' in next || 'page' in next.query);
		const limit =
			keepsSize && pageLimit !== undefined
				? pageLimit
				: Math.max(1, Math.min(maxPageSize, options.wanted()));
		let response;
		try {
			response = await apiRequest.call(
				this,
				pageRequest(next, { ...options.query, limit }),
				options.policy,
			);
		} catch (error) {
			// A service with a smaller maximum page size says so in a 422: use its maximum.
			const allowed = allowedPageSize(error, limit);
			if (allowed !== undefined) {
				maxPageSize = allowed;
				continue;
			}
			if (state.probe === undefined || !['400', '422'].includes(statusOf(error) ?? ''))
				throw toNodeError(this.getNode(), error);
			const after = nextRequest(state, 'refused', { limit, freshCalls: 0 });
			if (after === undefined) return;
			throw deadEndError(this.getNode(), after as DeadEnd, error as Error);
		}
		pageLimit = limit;

		let page;
		try {
			page = readPage(response.body, response.headers.link);
		} catch (error) {
			// A short excerpt of a non-JSON answer; an HTML error page is named, not quoted.
			const said = response.text === undefined ? undefined : serverMessage(response);
			const text = said ? ` (${said.slice(0, 80)})` : '';
			throw operationError(
				this.getNode(),
				`${(error as Error).message}${text}: check that the credential's Base URL is the service's address`,
				{ description: UNREADABLE_LIST_ADVICE },
			);
		}

		// A call without an id is known by its content, so that a list repeated whole is seen.
		const keyOf = (record: IDataObject) => idOf(record) ?? JSON.stringify(record);
		const firstRepeat = page.records.findIndex((record) => seenIds.has(keyOf(record)));
		const fresh = page.records.filter((record) => {
			const key = keyOf(record);
			if (seenIds.has(key)) return false;
			seenIds.add(key);
			return true;
		});
		const arrivedDuringWalk = firstRepeat > 0 ? firstRepeat : 0;
		const request = next;
		const after = nextRequest(state, page, { request, limit, freshCalls: fresh.length });
		next = isDeadEnd(after) ? undefined : after;
		yield { calls: fresh, request, next, arrivedDuringWalk };

		if (options.wanted() <= 0) return;
		if (isDeadEnd(after)) throw deadEndError(this.getNode(), after);
		if (next === undefined) return;
	}
}

function deadEndError(node: INode, end: DeadEnd, cause?: Error): Error {
	return operationError(node, end.deadEnd, { description: end.advice, cause });
}

const UNREADABLE_LIST_ADVICE = `If it is, the service lists calls in a form this node does not read yet: report this message to ${MAINTAINERS}.`;

/** The page size a 422 on `limit` allows (FastAPI puts it in `ctx.le`), if that is the error. */
function allowedPageSize(error: unknown, requested: number): number | undefined {
	const details = validationDetailsOf(error);
	if (!Array.isArray(details)) return undefined;
	for (const detail of details) {
		const loc = detail.loc as unknown[] | undefined;
		if (!Array.isArray(loc) || loc[loc.length - 1] !== 'limit') continue;
		const ctx = (detail.ctx ?? {}) as IDataObject;
		const fromCtx = Number(ctx.le ?? (typeof ctx.lt === 'number' ? ctx.lt - 1 : undefined));
		const fromMessage = Number(/(\d+)/.exec(String(detail.msg ?? ''))?.[1]);
		const allowed = Number.isFinite(fromCtx) ? fromCtx : fromMessage;
		if (Number.isFinite(allowed) && allowed >= 1 && allowed < requested) return allowed;
	}
	return undefined;
}
