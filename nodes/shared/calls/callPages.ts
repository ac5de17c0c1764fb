import type { IDataObject } from 'n8n-workflow';

import type { RequestContext } from '../context';
import type { ApiOperation, ApiRequest, RequestPolicy } from '../transport';
import { apiRequest } from '../transport';
import { operationError, serverMessage, toNodeError, validationDetailsOf } from '../errors';
import type { NextPage, Page } from './pagination';
import { readPage } from './pagination';

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
}

/**
 * The one decision of where a walk through the calls list goes after `page`: the page's own
 * next-page hint; for a bare list with no hint that came back full, the next offset (harmless
 * where unsupported: the repeated page brings nothing new); otherwise, or when the list repeats
 * a request, the end (undefined).
 */
export function nextRequest(
	state: WalkState,
	page: Page,
	asked: { limit: number; freshCalls: number },
): NextPage {
	state.listed += page.records.length;
	let next = page.next;
	if (next === undefined) {
		const full = page.unpaginated && page.records.length >= asked.limit && asked.freshCalls > 0;
		if (!full) return undefined;
		next = { query: { offset: state.listed } };
	}
	const marker = JSON.stringify(next);
	if (state.requested.has(marker)) return undefined;
	state.requested.add(marker);
	return next;
}

/** A walk that starts at `from` (undefined: the first page). */
function walkFrom(from: NextPage): WalkState {
	const offset = from && 'query' in from ? Number(from.query.offset) : NaN;
	const requested = new Set<string>(from === undefined ? [] : [JSON.stringify(from)]);
	return { listed: Number.isInteger(offset) && offset > 0 ? offset : 0, requested };
}

/** Listing calls, for Get Many Calls, the trigger and the editor's call list. */
export const LIST_CALLS: ApiOperation = { scope: 'calls:read', action: 'list calls' };

/** The request for a page of the calls list: a next-page URL as given, else `/v1/calls?query`. */
function pageRequest(next: NextPage, query: IDataObject): ApiRequest {
	if (next && 'url' in next) return { operation: LIST_CALLS, method: 'GET', url: next.url };
	return {
		operation: LIST_CALLS,
		method: 'GET',
		path: '/v1/calls',
		qs: { ...query, ...next?.query },
	};
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
		// Page numbers count in pages of the first page's size: keep it for the whole walk. A walk
		// resumed at a page number asks what its caller asks on every walk.
		const byPageNumber = next !== undefined && 'query' in next && 'page' in next.query;
		const limit =
			byPageNumber && pageLimit !== undefined
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
			if (allowed === undefined) throw toNodeError(this.getNode(), error);
			maxPageSize = allowed;
			continue;
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

		const firstRepeat = page.records.findIndex((record) => seenIds.has(idOf(record) ?? ''));
		const fresh = page.records.filter((record) => {
			const id = idOf(record);
			if (id === undefined) return true;
			if (seenIds.has(id)) return false;
			seenIds.add(id);
			return true;
		});
		const arrivedDuringWalk = firstRepeat > 0 ? firstRepeat : 0;
		const request = next;
		next = nextRequest(state, page, { limit, freshCalls: fresh.length });
		yield { calls: fresh, request, next, arrivedDuringWalk };

		if (next === undefined || options.wanted() <= 0) return;
	}
}

const UNREADABLE_LIST_ADVICE =
	"If it is, the service lists calls in a form this node does not read yet: report it to the node's maintainers with this message.";

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
