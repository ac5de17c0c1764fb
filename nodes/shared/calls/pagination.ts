import type { IDataObject } from 'n8n-workflow';
import { isJsonObject } from '../context';

/**
 * Reading one page of `GET /v1/calls`. The spec does not show the response, so the shapes
 * that APIs of this kind use are all accepted (see CONTRIBUTING.md, "Gaps in the API spec").
 */
const LIST_KEYS = ['data', 'items', 'calls', 'results', 'records'];
const CURSOR_KEYS = [
	'next_cursor',
	'nextCursor',
	'next_page_token',
	'nextPageToken',
	'cursor_next',
];
/** `next_page_url`: Laravel's paginator. */
const NEXT_KEYS = [
	'next',
	'next_url',
	'nextUrl',
	'next_page',
	'nextPage',
	'next_page_url',
	'nextPageUrl',
];
const CONTAINER_KEYS = ['pagination', 'meta', 'links', 'paging', 'page_info', 'pageInfo'];
const PAGE_COUNT_KEYS = ['pages', 'total_pages', 'totalPages', 'last_page', 'lastPage'];

/**
 * Where the next page is: a URL to request as it is (a query-only one, `?cursor=…`, is relative
 * to the request's path), or query parameters to add to the first request's (`cursor`, `page`,
 * `offset`, `starting_after`).
 */
export type NextPage = { url: string } | { query: IDataObject } | undefined;

export interface Page {
	records: IDataObject[];
	next: NextPage;
	/** True when the body carried no pagination hint at all (a bare list). */
	unpaginated: boolean;
	/** The body says more calls follow (`has_more: true`, Stripe) but not where. */
	more?: boolean;
}

class UnexpectedPageError extends Error {}

function nextFromValue(value: unknown): NextPage {
	if (typeof value === 'number') return { query: { cursor: String(value) } };
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const text = value.trim();
	return /^(https?:\/\/|\/|\?)/i.test(text) ? { url: text } : { query: { cursor: text } };
}

interface Hint {
	found: boolean;
	next: NextPage;
	more?: boolean;
}

/**
 * Page-number (`page` of `pages`; Laravel's `current_page` of `last_page`) and offset (`offset`
 * of `total`) styles.
 */
function nextFromCounters(source: IDataObject, pageLength: number): Hint {
	const numberAt = (keys: string[]) =>
		keys.map((key) => source[key]).find((value) => typeof value === 'number') as number | undefined;
	const pageCount = numberAt(PAGE_COUNT_KEYS);
	const page = numberAt(['page', 'current_page', 'currentPage']);
	if (page !== undefined && pageCount !== undefined) {
		return { found: true, next: page < pageCount ? { query: { page: page + 1 } } : undefined };
	}
	if (typeof source.offset === 'number' && typeof source.total === 'number') {
		const nextOffset = source.offset + pageLength;
		return {
			found: true,
			next:
				pageLength > 0 && nextOffset < source.total ? { query: { offset: nextOffset } } : undefined,
		};
	}
	return { found: false, next: undefined };
}

function nextFromObject(source: IDataObject, pageLength: number): Hint {
	if (source.has_more === false || source.hasMore === false)
		return { found: true, next: undefined };
	// Laravel writes its page links with its configured address (APP_URL), often not the one
	// the client used (`http://` behind a proxy, another host): with its counters, the node asks
	// for the next page at the Base URL itself. Without `last_page` (simplePaginate), the link.
	if (typeof (source.current_page ?? source.currentPage) === 'number') {
		const counted = nextFromCounters(source, pageLength);
		if (counted.found) return counted;
	}
	let found = false;
	for (const key of [...CURSOR_KEYS, ...NEXT_KEYS]) {
		if (key in source) {
			found = true;
			const value = source[key];
			const next = isJsonObject(value)
				? nextFromValue(value.href ?? value.url)
				: nextFromValue(value);
			if (next) return { found, next };
		}
	}
	// Stripe: `has_more` without a cursor; the next page starts after the last call (`nextRequest`).
	if (source.has_more === true || source.hasMore === true)
		return { found: true, next: undefined, more: true };
	if (found) return { found, next: undefined };
	return nextFromCounters(source, pageLength);
}

/** `Link: <https://api/v1/calls?cursor=abc>; rel="next"` (RFC 8288). */
export function nextFromLinkHeader(header: string | string[] | undefined): string | undefined {
	const text = Array.isArray(header) ? header.join(',') : header;
	if (!text) return undefined;
	for (const part of text.split(/,(?=\s*<)/)) {
		const match = /^\s*<([^>]*)>(.*)$/.exec(part);
		if (match && /;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?/i.test(match[2])) return match[1];
	}
	return undefined;
}

/** The calls of a page; anything else in the list (ids, nulls) is reported, never dropped silently. */
function callObjects(list: unknown[]): IDataObject[] {
	const others = list.filter((entry) => !isJsonObject(entry));
	if (others.length > 0) {
		const first = String(JSON.stringify(others[0])).slice(0, 40);
		throw new UnexpectedPageError(
			`The calls list could not be read: ${others.length} of its ${list.length} entries are not calls (first: ${first})`,
		);
	}
	return list as IDataObject[];
}

export function readPage(body: unknown, linkHeader?: string | string[]): Page {
	const linkNext = nextFromLinkHeader(linkHeader);
	const fromLink: NextPage = linkNext ? { url: linkNext } : undefined;

	if (Array.isArray(body)) {
		return { records: callObjects(body), next: fromLink, unpaginated: fromLink === undefined };
	}
	if (!isJsonObject(body)) {
		throw new UnexpectedPageError(
			body === undefined
				? 'The calls list could not be read: the answer was empty or not JSON'
				: `The calls list could not be read: the answer is not a list (got ${typeof body})`,
		);
	}
	const listKey = LIST_KEYS.find((key) => Array.isArray(body[key]));
	if (listKey === undefined) {
		throw new UnexpectedPageError(
			`The calls list could not be read: no list of calls in the answer (its fields: ${Object.keys(body).slice(0, 10).join(', ') || 'none'})`,
		);
	}
	const records = callObjects(body[listKey] as unknown[]);

	let hint = nextFromObject(body, records.length);
	for (const key of CONTAINER_KEYS) {
		if (hint.next || !isJsonObject(body[key])) continue;
		const nested = nextFromObject(body[key] as IDataObject, records.length);
		hint = { found: hint.found || nested.found, next: nested.next, more: hint.more || nested.more };
	}
	const next = hint.next ?? fromLink;
	return {
		records,
		next,
		unpaginated: !hint.found && fromLink === undefined,
		...(hint.more && next === undefined ? { more: true } : {}),
	};
}
