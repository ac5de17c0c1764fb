import { LeadCallAccessApi } from '../../credentials/LeadCallAccessApi.credentials';
import { parseBaseUrl } from '../../nodes/shared/connection';

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
