/**
 * Trust: the API key is sent to the credential's Base URL origin only. Never to the file host
 * of signed URLs, never to a `next` page or Link header on another origin (refused), never on a
 * redirect to another origin (not followed).
 */
import { leads } from '../../devkit/workflows';
import { authorizationOf, reply, useHarness } from './support/harness';

const { apiKey, emulator, foreign, runChecked, withStubApi, expectNoKeyInLogs } = useHarness(
	'origins',
	{ seedCalls: 10, recordingBytes: 4096 },
);

describe('Next pages on another origin', () => {
	const foreignNext = () => {
		const { baseUrl } = emulator();
		return [
			`${foreign().url}/v1/calls?cursor=abc`,
			`//${new URL(foreign().url).host}/v1/calls?cursor=abc`,
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
			expect(foreign().requests).toHaveLength(0);
		},
	);

	test('a Link header pointing to another origin is refused', async () => {
		const link = `<${foreign().url}/v1/calls?page=2>; rel="next"`;
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
				expect(foreign().requests).toHaveLength(0);
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

describe('Logs', () => {
	test('nothing written to the console, stdout or stderr carries the key', () => {
		expectNoKeyInLogs([apiKey]);
	});
});
