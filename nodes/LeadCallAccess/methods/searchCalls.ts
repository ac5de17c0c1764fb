import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { idOf, iterateCallPages } from '../../shared/calls/callPages';
import type { NextPage } from '../../shared/calls/pagination';
import type { RequestPolicy } from '../../shared/transport';

const PAGE_SIZE = 50;
/** A search reads at most this many pages per scroll step, so a rare match cannot hang the editor. */
const MAX_PAGES_PER_STEP = 5;
/** The editor waits on this list: fail fast instead of waiting minutes on a busy API. */
const EDITOR_POLICY: RequestPolicy = {
	timeoutMs: 20_000,
	maxRetries: 1,
	maxRateLimitWaitMs: 10_000,
};

/** The spec shows no call fields: show the ID and whatever common fields the call has. */
function label(call: IDataObject, id: string): string {
	const when = call.created_at ?? call.started_at ?? call.createdAt;
	const who = call.phone_e164 ?? call.from ?? call.to;
	return [id, when, who].filter((part) => typeof part === 'string' && part !== '').join(' · ');
}

/**
 * "From List" of the Call field: the calls of `GET /v1/calls`, one API page per scroll step
 * (the next page's address travels as the pagination token). The API has no documented search,
 * so the search box filters the listed calls by ID, time and phone number.
 */
export async function searchCalls(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const results: INodeListSearchItems[] = [];
	const pages = iterateCallPages.call(this, {
		query: {},
		wanted: () => PAGE_SIZE,
		policy: EDITOR_POLICY,
		from: paginationToken ? (JSON.parse(paginationToken) as NextPage) : undefined,
	});

	let next: NextPage;
	let pagesRead = 0;
	for await (const page of pages) {
		for (const call of page.calls) {
			const id = idOf(call);
			if (id === undefined) continue;
			const name = label(call, id);
			if (needle === '' || name.toLowerCase().includes(needle)) results.push({ name, value: id });
		}
		next = page.next;
		if (++pagesRead >= MAX_PAGES_PER_STEP || results.length > 0) break;
	}
	return { results, paginationToken: next === undefined ? undefined : JSON.stringify(next) };
}
