import { nextRequest } from '../../nodes/shared/calls/callPages';
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
	])('%j -> next %j', (body, next) => {
		const page = readPage(body);
		expect(page.records).toEqual(calls);
		expect(page.next).toEqual(next);
		expect(page.unpaginated).toBe(false);
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

	test('a full bare list goes on by offset; a short one or one with nothing new ends', () => {
		const walk = state();
		expect(nextRequest(walk, readPage(calls), asked)).toEqual({ query: { offset: 2 } });
		expect(nextRequest(walk, readPage(calls), asked)).toEqual({ query: { offset: 4 } });
		expect(nextRequest(state(), readPage([calls[0]]), asked)).toBeUndefined();
		expect(nextRequest(state(), readPage(calls), { ...asked, freshCalls: 0 })).toBeUndefined();
	});

	test('a list that points back to a page already requested ends instead of looping', () => {
		const walk = state();
		const page = readPage({ data: calls, next_cursor: 'same' });
		expect(nextRequest(walk, page, asked)).toEqual({ query: { cursor: 'same' } });
		expect(nextRequest(walk, page, asked)).toBeUndefined();
	});
});
