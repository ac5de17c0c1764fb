/**
 * Secrets: a sentinel API key (valid format, all scopes) appears in no output item, no error
 * message or description, and nothing written to the console, stdout or stderr, whatever the
 * outcome; http:// base URLs (except loopback) and malformed keys are refused before any request.
 * Where the key may be sent is checked in origins.test.ts.
 */
import type { Fault } from '../../devkit/emulator';
import type { WorkflowSetup } from '../../devkit/engine/fixtures';
import { leads } from '../../devkit/workflows';
import { sentinelKey } from '../../devkit/reliability/keys';
import type { Template } from './support/harness';
import { authorizationOf, useHarness } from './support/harness';

const { apiKey, emulator, credentials, runChecked, expectNoKeyInLogs } = useHarness('secrets', {
	seedCalls: 10,
	recordingBytes: 4096,
});
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

// Declared last, so it runs after every workflow above (jest runs describe blocks in order).
describe('Logs', () => {
	test('nothing written to the console, stdout or stderr carries a key', () => {
		expectNoKeyInLogs([apiKey, bearerPasted]);
	});
});
