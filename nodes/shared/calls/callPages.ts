import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ApiContext, RequestPolicy } from '../transport';
import { apiRequest } from '../transport';
import { VALIDATION_DETAILS, serverMessage } from '../transport/errors';
import type { NextPage } from './pagination';
import { readPage } from './pagination';

/** The largest page size APIs of this kind commonly accept; asking for more risks a 422. */
export const MAX_PAGE_SIZE = 100;

export interface CallPagesOptions {
	/** The user's own filters, sent with every page request. */
	query: IDataObject;
	/** How many calls the next page should hold; called before each request. */
	pageSize: () => number;
	policy: RequestPolicy;
}

/** A call's identifier; the spec shows no call fields, so the common spellings are accepted. */
export function idOf(record: IDataObject): string | undefined {
	const id = record.id ?? record.call_id ?? record.callId;
	return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/**
 * Yields the calls of `GET /v1/calls` page by page, following whichever next-page hint the
 * API gives (cursor, next URL, Link header). A call already yielded is never yielded again,
 * so overlapping pages do not duplicate calls. The caller stops the iteration when it has
 * enough, so no page beyond that is fetched.
 */
export async function* iterateCallPages(
	this: ApiContext,
	options: CallPagesOptions,
): AsyncGenerator<IDataObject[]> {
	const seenIds = new Set<string>();
	const seenNext = new Set<string>();
	let maxPageSize = MAX_PAGE_SIZE;
	let next: NextPage;
	let fetched = 0;

	for (;;) {
		const limit = Math.max(1, Math.min(maxPageSize, options.pageSize()));
		let response;
		try {
			response = await apiRequest.call(
				this,
				next && 'url' in next
					? { operation: 'listCalls', method: 'GET', url: next.url }
					: {
							operation: 'listCalls',
							method: 'GET',
							path: '/v1/calls',
							qs: { ...options.query, limit, ...next?.query },
						},
				options.policy,
			);
		} catch (error) {
			// A service with a smaller maximum page size says so in a 422: use its maximum.
			const allowed = allowedPageSize(error, limit);
			// NodeApiError hands back the same instance when `error` already is one.
			if (allowed === undefined) throw new NodeApiError(this.getNode(), error as JsonObject);
			maxPageSize = allowed;
			continue;
		}

		let page;
		try {
			page = readPage(response.body, response.headers.link);
		} catch (error) {
			// A short excerpt of a non-JSON answer; an HTML error page is named, not quoted.
			const said = response.text === undefined ? undefined : serverMessage(response);
			const text = said ? ` (${said.slice(0, 80)})` : '';
			throw new NodeOperationError(this.getNode(), `${(error as Error).message}${text}`);
		}

		const fresh = page.records.filter((record) => {
			const id = idOf(record);
			if (id === undefined) return true;
			if (seenIds.has(id)) return false;
			seenIds.add(id);
			return true;
		});
		fetched += page.records.length;
		if (fresh.length > 0) yield fresh;

		next = page.next;
		if (next === undefined) {
			// A bare list with no pagination hint: if it came back full, ask for the next
			// offset (harmless where unsupported: the repeated page brings nothing new).
			const full = page.unpaginated && page.records.length >= limit && fresh.length > 0;
			if (!full) return;
			next = { query: { offset: fetched } };
		}
		const marker = JSON.stringify(next);
		if (seenNext.has(marker)) return; // the API repeats itself: stop rather than loop forever
		seenNext.add(marker);
	}
}

/** The page size a 422 on `limit` allows (FastAPI puts it in `ctx.le`), if that is the error. */
function allowedPageSize(error: unknown, requested: number): number | undefined {
	const details = (error as { context?: IDataObject }).context?.[VALIDATION_DETAILS];
	if (!Array.isArray(details)) return undefined;
	for (const detail of details as IDataObject[]) {
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
