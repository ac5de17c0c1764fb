/**
 * Secrets: a sentinel API key (valid format, all scopes) appears in no output item, no error
 * message or description, and nothing written to the console, stdout or stderr, whatever the
 * outcome; http:// base URLs (except loopback) and malformed keys are refused before any request.
 * Trust: the key is sent to the credential's Base URL origin only. Never to the file host of
 * signed URLs, never to a `next` page or Link header on another origin (refused), never on a
 * redirect to another origin (not followed).
 */
import type { Fault } from '../../devkit/emulator';
import type { WorkflowSetup } from '../../devkit/engine/fixtures';
import { leads } from '../../devkit/workflows';
import { sentinelKey } from '../../devkit/reliability/keys';
import type { Template } from './support/harness';
import { authorizationOf, reply, useHarness } from './support/harness';

const { apiKey, emulator, credentials, runChecked, withStubApi, expectNoKeyInLogs } = useHarness(
	'secrets',
	{ seedCalls: 10, recordingBytes: 4096 },
);
const bearerPasted = `Bearer ${sentinelKey('pasted with Bearer')}`;

describe('The sentinel key appears in no output or error, whatever the outcome', () => {
	test.each<[string, Template, WorkflowSetup, Fault?]>([
		[
			'imports that succeed, fail locally and fail at the API',
			'importLeads',
			{
				items: [...leads(2), { phone: 'not a phone' }, { phone: '+1234' }],
				parameters: { options: { validatePhone: false } },
			},
		],
		[
			'503 until Max Retries is spent (workflow stops)',
			'importLeads',
			{ items: leads(1), parameters: { options: { maxRetries: 0 } }, onError: 'stopWorkflow' },
			{ kind: 'status', status: 503, count: 5 },
		],
		[
			'429 beyond Max Rate-Limit Wait',
			'importLeads',
			{ items: leads(1) },
			{ kind: 'status', status: 429, retryAfter: '3600', count: 5 },
		],
		[
			'a list with a cursor the API rejects (workflow stops)',
			'listCalls',
			{ onError: 'stopWorkflow' },
			{ kind: 'status', status: 200, count: 1, body: '{"data": [], "next_cursor": "bogus"}' },
		],
		['a recording that is not found', 'getRecording', { items: [{ id: 'call_404' }] }],
		[
			'a 401 whose body quotes the key back',
			'importLeads',
			{ items: leads(1) },
			{ kind: 'status', status: 401, count: 1, body: `{"detail": "Invalid API key ${apiKey}"}` },
		],
		[
			'an expired signed URL (workflow stops)',
			'getRecording',
			{
				items: [{ id: 'call_000001' }, { id: 'call_000002' }],
				parameters: { download: true },
				onError: 'stopWorkflow',
			},
			{ kind: 'expire-signed-urls' },
		],
		// A rest parameter: jest would take a fourth named one, absent from a row, for `done`.
	])('%s', async (scenario, template, setup, ...[fault]: [Fault?]) => {
		if (fault) emulator().inject(fault);
		await runChecked(scenario, template, setup);
		const sent = emulator().requests.map(authorizationOf);
		expect(sent).toEqual(sent.map(() => `Bearer ${apiKey}`));
	});
});

describe('Refused before any request', () => {
	test.each([
		'http://api.example.com',
		'http://10.0.0.5:8080',
		'http://localhost.example.com',
		'http://127.0.0.1.nip.io',
		'http://127.0.0.1@api.example.com',
		'HTTP://API.EXAMPLE.COM',
		'ftp://127.0.0.1',
		'javascript:alert(1)',
		'api.example.com',
		'//api.example.com',
		'https://user:pass@api.example.com',
		'https://api.example.com/?key=1',
	])('base URL %s', async (baseUrl) => {
		const result = await runChecked(
			`base URL ${baseUrl}`,
			'importLeads',
			{ items: leads(1) },
			credentials({ baseUrl }),
		);
		expect(result.errors.map((item) => item.error)).toEqual([
			expect.stringMatching(/^The credential's Base URL /),
		]);
		expect(emulator().requests).toHaveLength(0);
	});

	test.each([
		['empty', ''],
		['too short', 'pf_live_tooShort'],
		['one character short', `pf_live_${'a'.repeat(42)}`],
		['one character long', `pf_live_${'a'.repeat(44)}`],
		['another prefix', `pf_test_${'a'.repeat(43)}`],
		['pasted with "Bearer "', bearerPasted],
		['a space inside', `pf_live_${'a'.repeat(20)} ${'a'.repeat(22)}`],
		['a line break inside', `pf_live_${'a'.repeat(20)}\n${'a'.repeat(22)}`],
		['non-ASCII letters', `pf_live_${'ä'.repeat(43)}`],
	])('an API key that is %s', async (label, malformed) => {
		const result = await runChecked(
			`malformed API key (${label})`,
			'importLeads',
			{ items: leads(2) },
			credentials({ apiKey: malformed }),
			malformed === '' ? apiKey : malformed,
		);
		expect(result.errors.map((item) => item.error)).toEqual([
			expect.stringMatching(/^The credential's API key is malformed/),
			expect.stringMatching(/^The credential's API key is malformed/),
		]);
		expect(emulator().requests).toHaveLength(0);
	});
});

describe('Next pages on another origin', () => {
	// The emulator's file host is the other origin that must never see the key.
	const foreignNext = () => {
		const { baseUrl, fileBaseUrl } = emulator();
		return [
			`${fileBaseUrl}/v1/calls?cursor=abc`,
			`//${new URL(fileBaseUrl).host}/v1/calls?cursor=abc`,
			`${baseUrl.replace('http:', 'https:')}/v1/calls?cursor=abc`,
			`${baseUrl.replace('127.0.0.1', 'localhost')}/v1/calls?cursor=abc`,
		];
	};

	test.each([0, 1, 2, 3])(
		'a next URL on another origin is refused (variant %i)',
		async (variant) => {
			emulator().inject({
				kind: 'status',
				status: 200,
				count: 1,
				path: '/v1/calls',
				body: JSON.stringify({ results: [{ id: 'call_a' }], next: foreignNext()[variant] }),
			});
			const result = await runChecked(
				`next-page URL on another origin (${variant + 1} of 4)`,
				'listCalls',
				{ parameters: { returnAll: true } },
			);
			expect(result.errors[0]?.error).toMatch(
				/^Refused to follow a link to .*: the API key is only sent to/,
			);
			expect(emulator().requests).toHaveLength(1);
			expect(emulator().fileRequests).toHaveLength(0);
		},
	);

	test('a Link header pointing to another origin is refused', async () => {
		const link = `<${emulator().fileBaseUrl}/v1/calls?page=2>; rel="next"`;
		await withStubApi(
			(_request, res) =>
				reply(res, 200, { 'Content-Type': 'application/json', Link: link }, '[{"id": "call_a"}]'),
			async (_api, credentials) => {
				const result = await runChecked(
					'Link header to another origin',
					'listCalls',
					{ parameters: { returnAll: true } },
					credentials,
				);
				expect(result.errors[0]?.error).toMatch(/^Refused to follow a link to/);
				expect(emulator().fileRequests).toHaveLength(0);
			},
		);
	});
});

describe('Redirects to another origin', () => {
	test.each([301, 302, 303, 307, 308])(
		'a %i to the file host origin is not followed with the key',
		async (status) => {
			const target = emulator().fileBaseUrl;
			await withStubApi(
				(request, res) => reply(res, status, { Location: `${target}${request.url}` }),
				async (_api, creds) => {
					const redirected = new RegExp(`unexpected redirect \\(${status}\\)`);
					const imported = await runChecked(
						`${status} redirect of Import Lead`,
						'importLeads',
						{ items: leads(1) },
						creds,
					);
					const listed = await runChecked(
						`${status} redirect of List Calls`,
						'listCalls',
						{},
						creds,
					);
					expect(imported.errors[0]?.error).toMatch(redirected);
					expect(listed.errors[0]?.error).toMatch(redirected);
					expect(emulator().fileRequests).toHaveLength(0);
				},
			);
		},
	);

	/** A real signed URL on the emulator's file host (which answers 400 to any Authorization). */
	async function signedUrl(): Promise<string> {
		const call = emulator().calls.find((candidate) => candidate.has_recording)!;
		const response = await fetch(`${emulator().baseUrl}/v1/calls/${call.id}/recording`, {
			headers: { Authorization: `Bearer ${apiKey}` },
		});
		const { url } = (await response.json()) as { url: string };
		emulator().reset();
		return url;
	}

	test.each([
		['to the file host origin', signedUrl],
		['relative to the API', async () => '/files/call_a.mp3?sig=1'],
	])('a recording served as a redirect %s is downloaded without the key', async (label, locate) => {
		const location = await locate();
		await withStubApi(
			(request, res) =>
				request.url.startsWith('/files/')
					? reply(res, 200, { 'Content-Type': 'audio/mpeg' }, 'ID3 not really audio')
					: reply(res, 302, { Location: location }),
			async (api, credentials) => {
				const result = await runChecked(
					`recording redirect ${label}`,
					'getRecording',
					{
						items: [{ id: 'call_a' }],
						parameters: { download: true, options: { maxRetries: 1 } },
					},
					credentials,
				);
				expect(result.errors).toEqual([]);
				const downloads = [
					...emulator().fileRequests,
					...api.requests.filter((request) => request.url.startsWith('/files/')),
				];
				expect(downloads.map(authorizationOf)).toEqual([undefined]);
			},
		);
	});
});

// Declared last, so it runs after every workflow above (jest runs describe blocks in order).
describe('Logs', () => {
	test('nothing written to the console, stdout or stderr carries a key', () => {
		expectNoKeyInLogs([apiKey, bearerPasted]);
	});
});
