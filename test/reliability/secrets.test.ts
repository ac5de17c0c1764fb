/**
 * Secrets and trust: a sentinel API key (valid format, all scopes) must appear in no output
 * item, no error message or description, nothing written to the console, and must reach no
 * origin but the API's: not the file host, not a `next` page elsewhere, not a redirect target.
 * http:// base URLs (except loopback) and malformed keys are refused before any request.
 */
import type { ServerResponse } from 'http';
import { inspect } from 'util';

import type { Emulator } from '../emulator';
import { startEmulator } from '../emulator';
import type { WorkflowSetup } from '../engine/fixtures';
import { leads, run, workflowFrom } from '../engine/fixtures';
import type { TestCredentials } from '../engine/harness';
import { placesContaining } from './support/audit';
import { OutputCapture } from './support/capture';
import { keyWithAllScopes, sentinelKey } from './support/keys';
import type { ResultRow } from './support/results';
import { ResultsCollector } from './support/results';
import type { StubRequest } from './support/stubServer';
import { StubServer, reply } from './support/stubServer';

const apiKey = sentinelKey('secrets');
const results = new ResultsCollector('secrets');
const capture = new OutputCapture();
let emulator: Emulator;
/** Another origin: a next-page or redirect target that must never see the key. */
let foreign: StubServer;
let order = 0;

beforeAll(async () => {
	capture.install();
	emulator = await startEmulator({
		rateLimit: false,
		keys: keyWithAllScopes(apiKey),
		seedCalls: 10,
		recordingBytes: 4096,
	});
	foreign = await StubServer.start((_request, res) =>
		reply(res, 200, { 'Content-Type': 'audio/mpeg' }, 'ID3 not really audio'),
	);
});
beforeEach(() => {
	emulator.reset();
	foreign.requests.length = 0;
});
afterAll(async () => {
	capture.restore();
	await Promise.all([emulator.stop(), foreign.stop()]);
	results.write();
});

const credentials = (overrides: Partial<TestCredentials> = {}): TestCredentials => ({
	baseUrl: emulator.baseUrl,
	apiKey,
	requestsPerMinute: 0,
	...overrides,
});

type Template = Parameters<typeof workflowFrom>[0];
const OPERATION: Record<Template, string> = {
	importLeads: 'Import Lead',
	listCalls: 'List Calls',
	getRecording: 'Get Recording',
};

/** Runs a workflow, checks the key is nowhere in what it produced, and records a row. */
async function runChecked(
	scenario: string,
	template: Template,
	setup: WorkflowSetup,
	creds: TestCredentials = credentials(),
	secret = apiKey,
) {
	const result = await run(workflowFrom(template, setup), creds);
	const leakedTo = placesContaining(secret, {
		'execution data': JSON.stringify(result.run),
		'errors with their causes and stacks': inspect(result.run, { depth: null }),
		'requests to another origin': foreign.text(),
	});
	const requestsSent = emulator.requests.length + emulator.fileRequests.length + foreign.requests.length;
	const row: ResultRow = {
		scenario: `secrets: ${scenario}`,
		operation: OPERATION[template],
		itemsIn: setup.items?.length ?? 1,
		success: new Set(result.output(nodeNameOf(template)).success.map((item) => pairedOf(item))).size,
		error: result.errors.length + (result.error ? 1 : 0),
		requestsSent,
		retries: 0,
		lost: 0,
		leaked: leakedTo.length,
		problems: leakedTo.map((place) => `the key appears in the ${place}`),
	};
	results.add(order++, row);
	expect(leakedTo).toEqual([]);
	return result;
}

const nodeNameOf = (template: Template) =>
	workflowFrom(template).nodes.find((node) => node.type !== 'test.items')!.name;
const pairedOf = (item: { pairedItem?: unknown }) => (item.pairedItem as { item: number }).item;
const authorizationOf = (request: { headers: Record<string, unknown> }) => request.headers.authorization;

describe('The sentinel key appears in no output, error or log line', () => {
	test.each<[string, Template, WorkflowSetup, () => void]>([
		['imports that succeed, fail locally and fail at the API', 'importLeads', {
			items: [...leads(2), { phone: 'not a phone' }, { phone: '+1234' }],
			parameters: { options: { validatePhone: false } },
		}, () => {}],
		['503 until Max Retries is spent (workflow stops)', 'importLeads', {
			items: leads(1),
			parameters: { options: { maxRetries: 0 } },
			onError: 'stopWorkflow',
		}, () => emulator.inject({ kind: 'status', status: 503, count: 5 })],
		['429 beyond Max Rate-Limit Wait', 'importLeads', { items: leads(1) }, () =>
			emulator.inject({ kind: 'status', status: 429, retryAfter: '3600', count: 5 })],
		['a list with a cursor the API rejects (workflow stops)', 'listCalls', { onError: 'stopWorkflow' }, () =>
			emulator.inject({ kind: 'status', status: 200, count: 1, body: '{"data": [], "next_cursor": "bogus"}' })],
		['a recording that is not found', 'getRecording', { items: [{ id: 'call_404' }] }, () => {}],
		['an expired signed URL (workflow stops)', 'getRecording', {
			items: [{ id: 'call_000001' }, { id: 'call_000002' }],
			parameters: { download: true },
			onError: 'stopWorkflow',
		}, () => emulator.inject({ kind: 'expire-signed-urls' })],
	])('%s', async (scenario, template, setup, arrange) => {
		arrange();
		await runChecked(scenario, template, setup);
		expect(emulator.requests.every((request) => authorizationOf(request) === `Bearer ${apiKey}`)).toBe(true);
	});

	test('recordings are downloaded from the file host without the key', async () => {
		const ids = emulator.calls.filter((call) => call.has_recording).slice(0, 3).map((call) => call.id);
		const result = await runChecked('downloads from the file host', 'getRecording', {
			items: ids.map((id) => ({ id })),
			parameters: { download: true },
		});
		expect(result.errors).toEqual([]);
		expect(emulator.fileRequests).toHaveLength(3);
		expect(emulator.fileRequests.map(authorizationOf)).toEqual([undefined, undefined, undefined]);
	});
});

describe('The key is sent to the base URL origin only', () => {
	const foreignNext = () => [
		`${foreign.url}/v1/calls?cursor=abc`,
		`//${new URL(foreign.url).host}/v1/calls?cursor=abc`,
		`${emulator.baseUrl.replace('http:', 'https:')}/v1/calls?cursor=abc`,
		`${emulator.baseUrl.replace('127.0.0.1', 'localhost')}/v1/calls?cursor=abc`,
	];

	test.each([0, 1, 2, 3])('a next-page URL on another origin is refused (variant %i)', async (variant) => {
		const next = foreignNext()[variant];
		emulator.inject({
			kind: 'status',
			status: 200,
			count: 1,
			path: '/v1/calls',
			body: JSON.stringify({ results: [{ id: 'call_a' }], next }),
		});
		const result = await runChecked(`next-page URL on another origin (${variant + 1} of 4)`, 'listCalls', {
			parameters: { returnAll: true },
		});
		expect(result.errors[0]?.error).toMatch(/^Refused to follow a link to .*: the API key is only sent to/);
		expect(emulator.requests).toHaveLength(1);
		expect(foreign.requests).toHaveLength(0);
	});

	/** An API that answers everything with a redirect, or a Link header, to the foreign origin. */
	async function withStubApi(answer: (request: StubRequest, res: ServerResponse) => void, test: (api: StubServer) => Promise<void>) {
		const api = await StubServer.start(answer);
		try {
			await test(api);
			const apiCalls = api.requests.filter((request) => request.url.startsWith('/v1/'));
			expect(apiCalls.every((request) => authorizationOf(request) === `Bearer ${apiKey}`)).toBe(true);
		} finally {
			await api.stop();
		}
	}

	test('a Link header pointing to another origin is refused', async () => {
		await withStubApi(
			(_request, res) =>
				reply(res, 200, { 'Content-Type': 'application/json', Link: `<${foreign.url}/v1/calls?page=2>; rel="next"` }, '[{"id": "call_a"}]'),
			async (api) => {
				const result = await runChecked('Link header to another origin', 'listCalls', { parameters: { returnAll: true } }, credentials({ baseUrl: api.url }));
				expect(result.errors[0]?.error).toMatch(/^Refused to follow a link to/);
				expect(foreign.requests).toHaveLength(0);
			},
		);
	});

	test.each([301, 302, 303, 307, 308])('a %i redirect to another origin is not followed with the key', async (status) => {
		await withStubApi(
			(request, res) => reply(res, status, { Location: `${foreign.url}${request.url}` }),
			async (api) => {
				const creds = credentials({ baseUrl: api.url });
				const imported = await runChecked(`${status} redirect of Import Lead`, 'importLeads', { items: leads(1) }, creds);
				const listed = await runChecked(`${status} redirect of List Calls`, 'listCalls', {}, creds);
				expect(imported.errors[0]?.error).toMatch(new RegExp(`unexpected redirect \\(${status}\\)`));
				expect(listed.errors[0]?.error).toMatch(new RegExp(`unexpected redirect \\(${status}\\)`));
				expect(foreign.requests).toHaveLength(0);
			},
		);
	});

	test.each([
		['to another origin', () => `${foreign.url}/recordings/call_a.mp3?sig=1`],
		['relative to the API', () => '/files/call_a.mp3?sig=1'],
	])('a recording served as a redirect %s is downloaded without the key', async (label, location) => {
		await withStubApi(
			(request, res) =>
				request.url.startsWith('/files/')
					? reply(res, 200, { 'Content-Type': 'audio/mpeg' }, 'ID3 not really audio')
					: reply(res, 302, { Location: location() }),
			async (api) => {
				const result = await runChecked(`recording redirect ${label}`, 'getRecording', {
					items: [{ id: 'call_a' }],
					parameters: { download: true, options: { maxRetries: 1 } },
				}, credentials({ baseUrl: api.url }));
				expect(result.errors).toEqual([]);
				const downloads = [...foreign.requests, ...api.requests.filter((request) => request.url.startsWith('/files/'))];
				expect(downloads).toHaveLength(1);
				expect(downloads.map(authorizationOf)).toEqual([undefined]);
			},
		);
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
		const result = await runChecked(`base URL ${baseUrl}`, 'importLeads', { items: leads(1) }, credentials({ baseUrl }));
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0].error).toMatch(/^The credential's Base URL /);
		expect(emulator.requests).toHaveLength(0);
	});

	test.each([
		['empty', ''],
		['too short', 'pf_live_tooShort'],
		['one character short', `pf_live_${'a'.repeat(42)}`],
		['one character long', `pf_live_${'a'.repeat(44)}`],
		['another prefix', `pf_test_${'a'.repeat(43)}`],
		['pasted with "Bearer "', `Bearer ${sentinelKey('bearer')}`],
		['a space inside', `pf_live_${'a'.repeat(20)} ${'a'.repeat(22)}`],
		['a line break inside', `pf_live_${'a'.repeat(20)}\n${'a'.repeat(22)}`],
		['non-ASCII letters', `pf_live_${'ä'.repeat(43)}`],
	])('an API key that is %s', async (label, malformed) => {
		const result = await run(workflowFrom('importLeads', { items: leads(2) }), credentials({ apiKey: malformed }));
		expect(result.errors.map((item) => item.error)).toEqual([
			expect.stringMatching(/^The credential's API key is malformed/),
			expect.stringMatching(/^The credential's API key is malformed/),
		]);
		expect(emulator.requests).toHaveLength(0);
		if (malformed !== '') {
			await runChecked(`malformed API key (${label})`, 'importLeads', { items: leads(2) }, credentials({ apiKey: malformed }), malformed);
		}
	});

	test('a key pasted with surrounding whitespace is sent trimmed', async () => {
		const result = await runChecked('API key with surrounding whitespace', 'importLeads', { items: leads(1) }, credentials({ apiKey: ` ${apiKey}\n` }));
		expect(result.errors).toEqual([]);
		expect(emulator.requests.map(authorizationOf)).toEqual([`Bearer ${apiKey}`]);
	});
});

// Declared last, so it runs after every run above (jest runs describe blocks in order).
describe('Logs', () => {
	test('nothing written to the console, stdout or stderr during the suite carries the key', () => {
		console.info('capture self-check');
		expect(capture.text()).toContain('capture self-check');
		expect(capture.text()).not.toContain(apiKey);
		expect(capture.text()).not.toContain(sentinelKey('bearer'));
	});
});
