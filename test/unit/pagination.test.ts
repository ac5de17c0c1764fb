import type { DeadEnd } from '../../nodes/shared/calls/callPages';
import { nextRequest } from '../../nodes/shared/calls/callPages';
import type { NextPage } from '../../nodes/shared/calls/pagination';
import { nextFromLinkHeader, readPage } from '../../nodes/shared/calls/pagination';

describe('readPage', () => {
	const calls = [{ id: 'a' }, { id: 'b' }];
	test.each([
		[{ data: calls, next_cursor: 'c1' }, { query: { cursor: 'c1' } }],
		[{ items: calls, nextCursor: 'c2' }, { query: { cursor: 'c2' } }],
		[{ calls, next: 'tok' }, { query: { cursor: 'tok' } }],
		[
			{ results: calls, next: 'https://api.example.com/v1/calls?cursor=3' },
			{ url: 'https://api.example.com/v1/calls?cursor=3' },
		],
		[{ data: calls, meta: { next_cursor: 'm' } }, { query: { cursor: 'm' } }],
		[{ items: calls, next_page: 'p2' }, { query: { cursor: 'p2' } }],
		[{ items: calls, total: 9, page: 1, size: 2, pages: 5 }, { query: { page: 2 } }],
		[{ items: calls, total: 9, page: 5, size: 2, pages: 5 }, undefined],
		[{ data: calls, offset: 4, limit: 2, total: 9 }, { query: { offset: 6 } }],
		[{ data: calls, offset: 7, limit: 2, total: 9 }, undefined],
		[{ data: calls, links: { next: '/v1/calls?page=2' } }, { url: '/v1/calls?page=2' }],
		[{ data: calls, pagination: { next_cursor: null } }, undefined],
		[{ data: calls, next_cursor: 'x', has_more: false }, undefined],
		[{ data: calls, next_cursor: null }, undefined],
		[{ items: calls, next: '?cursor=q&limit=2' }, { url: '?cursor=q&limit=2' }],
		[
			{ data: calls, current_page: 1, last_page: 2, next_page_url: 'u?page=2' },
			{ query: { page: 2 } },
		],
		[{ data: calls, current_page: 2, last_page: 2, next_page_url: null }, undefined],
		[
			{ data: calls, current_page: 1, next_page_url: 'https://a/v1/calls?page=2' },
			{ url: 'https://a/v1/calls?page=2' },
		],
		[{ data: calls, meta: { currentPage: 1, lastPage: 3 } }, { query: { page: 2 } }],
	])('%j -> next %j', (body, next) => {
		const page = readPage(body);
		expect(page.records).toEqual(calls);
		expect(page.next).toEqual(next);
		expect(page.unpaginated).toBe(false);
	});

	test('has_more: true without a cursor says more follow, not where (Stripe)', () => {
		expect(readPage({ object: 'list', data: calls, has_more: true })).toEqual({
			records: calls,
			next: undefined,
			unpaginated: false,
			more: true,
		});
		expect(readPage({ data: calls, hasMore: true, next_cursor: 'c' }).more).toBeUndefined();
		expect(readPage({ data: calls, has_more: true, next_cursor: null }).more).toBe(true);
	});

	test('a bare list is unpaginated unless a Link header says otherwise', () => {
		expect(readPage(calls)).toEqual({ records: calls, next: undefined, unpaginated: true });
		expect(readPage(calls, '<https://a.example/v1/calls?cursor=2>; rel="next"').next).toEqual({
			url: 'https://a.example/v1/calls?cursor=2',
		});
	});

	test.each([
		[undefined, 'the answer was empty or not JSON'],
		['text', 'the answer is not a list (got string)'],
		[{ total: 3 }, 'no list of calls in the answer (its fields: total)'],
		[42, 'the answer is not a list (got number)'],
	])('%j is not a page', (body, reason) => {
		expect(() => readPage(body)).toThrow(`The calls list could not be read: ${reason}`);
	});
});

describe('nextFromLinkHeader', () => {
	test('finds rel=next among several links', () => {
		const header =
			'<https://x/v1/calls?cursor=1>; rel="prev", <https://x/v1/calls?cursor=3>; rel="next"';
		expect(nextFromLinkHeader(header)).toBe('https://x/v1/calls?cursor=3');
		expect(nextFromLinkHeader('<https://x/a>; rel="last"')).toBeUndefined();
		expect(nextFromLinkHeader(undefined)).toBeUndefined();
	});
});

describe('nextRequest: where a walk through the list goes next, or that it ends', () => {
	const calls = [{ id: 'a' }, { id: 'b' }];
	const state = () => ({ listed: 0, requested: new Set<string>() });
	const asked = { limit: 2, freshCalls: 2 };

	test("follows the page's own hint", () => {
		expect(nextRequest(state(), readPage({ data: calls, next_cursor: 'c' }), asked)).toEqual({
			query: { cursor: 'c' },
		});
	});

	test('has_more alone goes on after the last call; without its id, or when ignored, a dead end', () => {
		const stripe = (data: object[]) => readPage({ data, has_more: true });
		expect(nextRequest(state(), stripe(calls), asked)).toEqual({
			query: { starting_after: 'b' },
		});
		for (const data of [[{ name: 'no id' }], []])
			expect(nextRequest(state(), stripe(data), asked)).toEqual({
				deadEnd: expect.stringMatching(/says it has more \(has_more\) but not where/),
				advice: expect.stringMatching(/Query Parameters/),
			});
		const walk = state();
		const request = nextRequest(walk, stripe(calls), asked) as NextPage;
		expect(nextRequest(walk, stripe(calls), { ...asked, request, freshCalls: 0 })).toEqual({
			deadEnd: `The node cannot reach the calls after the first 2: the service ignored starting_after and listed the same calls again`,
			advice: expect.any(String),
		});
	});

	test.each([
		['/v1/calls?cursor=a', '/v1/calls?cursor=q&limit=2'],
		['http://h:1/v1/calls?cursor=a#x', 'http://h:1/v1/calls?cursor=q&limit=2'],
		[undefined, '/v1/calls?cursor=q&limit=2'],
	])('a query-only next link after %s is on the same path', (url, expected) => {
		const page = readPage({ items: calls, next: '?cursor=q&limit=2' });
		const request = url === undefined ? undefined : { url };
		expect(nextRequest(state(), page, { ...asked, request })).toEqual({ url: expected });
	});

	// A bare list: each row lists the walk's pages in turn, "calls listed/of them new" (limit 2),
	// and where the walk goes after each.
	const probe = (at: number) => ({ query: { offset: at, skip: at } });
	const ignoredAfter = (at: number) => ({
		deadEnd: `The node cannot reach the calls after the first ${at}: the service ignored offset and skip and listed the same calls again`,
		advice: expect.stringMatching(new RegExp(`set Limit to ${at} or less`)),
	});
	test.each([
		['full pages of new calls go on', '2/2 2/2', [probe(2), probe(4)]],
		['a short page too (a silent cap looks short)', '1/1 1/1', [probe(1), probe(2)]],
		['a probe answered with nothing ends it', '2/2 0/0', [probe(2), undefined]],
		['a short page answered with calls listed (listed whole)', '1/1 1/0', [probe(1), undefined]],
		['a short page answered with calls listed, more of them', '1/1 2/0', [probe(1), undefined]],
		['a full page answered with calls listed', '2/2 2/0', [probe(2), ignoredAfter(2)]],
		['the same after new calls', '2/2 2/2 2/0', [probe(2), probe(4), ignoredAfter(4)]],
	])('%s: %s', (_, pages, expected) => {
		const walk = state();
		let request: NextPage | DeadEnd;
		const nexts = pages
			.split(' ')
			.map((step) => step.split('/').map(Number))
			.map(([listed, freshCalls]) => {
				const at = { ...asked, freshCalls, request: request as NextPage };
				return (request = nextRequest(walk, readPage(calls.slice(0, listed)), at));
			});
		expect(nexts).toEqual(expected);
	});

	test('a page without a hint after a link or cursor is the end, not a bare list', () => {
		const linked = readPage(calls, '<https://x/v1/calls?cursor=2>; rel="next"');
		const walk = state();
		const request = nextRequest(walk, linked, asked) as NextPage;
		expect(nextRequest(walk, readPage(calls), { ...asked, request })).toBeUndefined();
		const cursor = { query: { cursor: 'c' } };
		expect(nextRequest(state(), readPage(calls), { ...asked, request: cursor })).toBeUndefined();
	});

	test('a probe refused (400 or 422) ends the list after a short page, is a dead end after a full one', () => {
		const refusedAfter = (listed: number) => {
			const walk = state();
			nextRequest(walk, readPage(calls.slice(0, listed)), asked);
			return nextRequest(walk, 'refused', asked);
		};
		expect(refusedAfter(1)).toBeUndefined();
		expect(refusedAfter(2)).toEqual({
			deadEnd: expect.stringMatching(/after the first 2: the service refused offset and skip/),
			advice: expect.any(String),
		});
		// Not after a probe (a remembered request, say): not the walk's to decide.
		expect(nextRequest(state(), 'refused', asked)).toBeUndefined();
	});

	test('a list that points back to a page already requested ends instead of looping', () => {
		const walk = state();
		const page = readPage({ data: calls, next_cursor: 'same' });
		expect(nextRequest(walk, page, asked)).toEqual({ query: { cursor: 'same' } });
		expect(nextRequest(walk, page, asked)).toBeUndefined();
	});
});
