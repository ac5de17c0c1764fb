import type { INode } from 'n8n-workflow';

import { parseConnectionSettings } from '../../nodes/shared/connection';
import { LIST_CALLS } from '../../nodes/shared/calls/callPages';
import { resolveUrl } from '../../nodes/shared/transport';

// Following a next-page link on another origin, and its message, runs against the emulator
// (test/engine/listCalls.test.ts); the emulator speaks plain http, so the scheme is checked here.
const node = { name: 'Get Many Calls', type: 'leadCallAccess' } as INode;
const apiKey = `pf_live_${'a'.repeat(43)}`;
const linkFrom = (baseUrl: string, url: string) =>
	resolveUrl(
		parseConnectionSettings({ baseUrl, apiKey }),
		{ operation: LIST_CALLS, method: 'GET', url },
		node,
	);

describe('resolveUrl: a next-page link', () => {
	test('written with http:// on the https Base URL host (a proxy that ends TLS) goes over https', () => {
		expect(linkFrom('https://api.example.com', 'http://api.example.com/v1/calls?page=2')).toBe(
			'https://api.example.com/v1/calls?page=2',
		);
	});

	test.each([
		['on another port', 'https://api.example.com', 'http://api.example.com:8000/v1/calls?page=2'],
		['on another host', 'https://api.example.com', 'http://internal.example.com/v1/calls?page=2'],
		[
			'over https, with an http Base URL',
			'http://127.0.0.1:5678',
			'https://127.0.0.1:5678/v1/calls',
		],
	])('%s: refused', (_, baseUrl, url) => {
		expect(() => linkFrom(baseUrl, url)).toThrow(/^Refused to follow a link to /);
	});
});
