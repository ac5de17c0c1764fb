import type { ICredentialTestFunctions } from 'n8n-workflow';

import { LeadCallAccessApi } from '../../credentials/LeadCallAccessApi.credentials';
import { parseBaseUrl } from '../../nodes/shared/connection';
import { testCredential } from '../../nodes/shared/credentialCheck';

const key = `pf_live_${'a1B2_-'.repeat(7)}x`;
const credential = new LeadCallAccessApi();

describe('credential', () => {
	test('attaches the bearer key to requests under the base URL only', async () => {
		const options = await credential.authenticate(
			{ baseUrl: 'https://api.example.com/v1/', apiKey: ` ${key}\n` },
			{ url: 'https://api.example.com/v1/leads', headers: { Accept: 'application/json' } },
		);
		expect(options.headers).toEqual({ Accept: 'application/json', Authorization: `Bearer ${key}` });
		expect(options.sendCredentialsOnCrossOriginRedirect).toBe(false);
	});

	test('normalises the credential test base URL (trailing slash or /v1)', async () => {
		const options = await credential.authenticate(
			{ baseUrl: 'https://api.example.com/v1/', apiKey: key },
			{ baseURL: 'https://api.example.com/v1/', url: '/v1/calls' },
		);
		expect(options.baseURL).toBe('https://api.example.com');
	});

	test.each([
		[
			{ baseUrl: 'https://api.example.com', apiKey: key },
			'https://evil.example.com/v1/leads',
			/Refused to send the API key to https:\/\/evil\.example\.com/,
		],
		[
			{ baseUrl: 'http://api.example.com', apiKey: key },
			'http://api.example.com/v1/leads',
			/must start with https:\/\//,
		],
		[
			{ baseUrl: 'https://api.example.com', apiKey: 'pf_live_abc' },
			'https://api.example.com/v1/leads',
			/API key is malformed: it has 3 characters/,
		],
		[
			{ baseUrl: 'https://api.example.com', apiKey: `sk_${key}` },
			'https://api.example.com/v1/leads',
			/does not start with 'pf_live_'/,
		],
	])('refuses %j -> %s', async (credentials, url, message) => {
		const attempt = credential.authenticate(credentials, { url });
		await expect(attempt).rejects.toThrow(message);
		await attempt.catch((error: Error) =>
			expect(error.message).not.toContain(String(credentials.apiKey)),
		);
	});

	test.each([
		['http://localhost:3000', 'http://localhost:3000'],
		['http://127.0.0.1:8080/', 'http://127.0.0.1:8080'],
		['http://[::1]:8080', 'http://[::1]:8080'],
		['https://api.example.com/base/v1', 'https://api.example.com/base'],
	])('base URL %s -> %s', (raw, apiBase) => {
		expect(parseBaseUrl(raw).apiBase).toBe(apiBase);
	});
});

describe('the credential test', () => {
	/** A service that grants `scopes` to the key, answering each probe as the API does. */
	const serviceGranting = (scopes: string[]) => {
		const sent: Array<{ uri: string; authorization: unknown }> = [];
		const granted: Record<string, [string, number]> = {
			'/v1/calls': ['calls:read', 200],
			'/v1/leads': ['leads:write', 422],
		};
		const request = async (options: { uri: string; headers: Record<string, unknown> }) => {
			sent.push({ uri: options.uri, authorization: options.headers.Authorization });
			const [scope, status] = granted[new URL(options.uri).pathname] ?? ['recordings:read', 404];
			return await Promise.resolve({ statusCode: scopes.includes(scope) ? status : 403 });
		};
		return { sent, context: { helpers: { request } } as unknown as ICredentialTestFunctions };
	};
	const data = { baseUrl: 'https://api.example.com/v1', apiKey: key };
	const runTest = async (scopes: string[]) => {
		const service = serviceGranting(scopes);
		const result = await testCredential.call(service.context, {
			id: '1',
			name: 'x',
			type: 'x',
			data,
		});
		return { result, sent: service.sent };
	};

	test('a key with every scope passes; each probe carries the key, attached by the credential', async () => {
		const { result, sent } = await runTest(['calls:read', 'leads:write', 'recordings:read']);
		expect(result).toEqual({
			status: 'OK',
			message: 'Valid API key with scopes: calls:read, leads:write, recordings:read',
		});
		expect(sent).toHaveLength(3);
		for (const { authorization } of sent) expect(authorization).toBe(`Bearer ${key}`);
	});

	test('a leads-only key fails naming what it lacks, and says it is all an import needs', async () => {
		expect((await runTest(['leads:write'])).result).toEqual({
			status: 'Error',
			message:
				'This key works for Import Lead (it has leads:write) but lacks calls:read (for Get Many Calls and the trigger) and recordings:read (for Get Recording). If you use only Import Lead, this key is all you need: the rest is optional. For the others, create a key with those scopes too in the desktop app (Settings > Developers)',
		});
	});
});
