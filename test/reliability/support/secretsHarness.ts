/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
import type { ServerResponse } from 'http';
import { inspect } from 'util';

import type { Emulator } from '../../../devkit/emulator';
import { startEmulator } from '../../../devkit/emulator';
import type { WorkflowSetup } from '../../../devkit/engine/fixtures';
import { run, workflowFrom } from '../../../devkit/engine/fixtures';
import type { TestCredentials, WorkflowResult } from '../../../devkit/engine/harness';
import { account, placesContaining } from '../../../devkit/reliability/audit';
import { OutputCapture } from './capture';
import { keyWithAllScopes, sentinelKey } from '../../../devkit/reliability/keys';
import type { ResultRow } from '../../../devkit/reliability/results';
import { ResultsCollector } from '../../../devkit/reliability/results';
import type { StubRequest } from './stubServer';
import { StubServer, reply } from './stubServer';
import { TEST_ITEMS_TYPE } from '../../../devkit/workflows';

export type Template = Parameters<typeof workflowFrom>[0];

const OPERATION: Record<Template, string> = {
	importLeads: 'Import Lead',
	listCalls: 'List Calls',
	getRecording: 'Get Recording',
};

const nodeNameOf = (template: Template) =>
	workflowFrom(template).nodes.find((node) => node.type !== TEST_ITEMS_TYPE)!.name;

export const authorizationOf = (request: { headers: Record<string, unknown> }) =>
	request.headers.authorization;

export interface SecretsHarness {
	/** A valid-format key with all scopes, registered in the emulator. */
	apiKey: string;
	capture: OutputCapture;
	emulator: () => Emulator;
	/** Another origin: a next-page or redirect target that must never see the key. */
	foreign: () => StubServer;
	credentials: (overrides?: Partial<TestCredentials>) => TestCredentials;
	/** Runs a workflow, asserts `secret` is nowhere in what it produced, and records a row. */
	runChecked: (
		scenario: string,
		template: Template,
		setup: WorkflowSetup,
		credentials?: TestCredentials,
		secret?: string,
	) => Promise<WorkflowResult & { errors: Array<Record<string, unknown>> }>;
	/** Runs `test` against a stand-in API answering as `answer` says; checks what reached it. */
	withStubApi: (
		answer: (request: StubRequest, res: ServerResponse) => void,
		test: (api: StubServer) => Promise<void>,
	) => Promise<void>;
}

/**
 * Shared set-up of the secrets suites: one emulator and one foreign origin per file (reset
 * before each test), output captured for the whole file, one results file per suite.
 */
export function useSecretsHarness(suite: string): SecretsHarness {
	const apiKey = sentinelKey(suite);
	const results = new ResultsCollector(suite);
	const capture = new OutputCapture();
	let emulator: Emulator | undefined;
	let foreign: StubServer | undefined;
	const stubApis = new Set<StubServer>();
	let order = 0;
	const requestsSoFar = () =>
		emulator!.requests.length +
		emulator!.fileRequests.length +
		foreign!.requests.length +
		[...stubApis].reduce((sum, api) => sum + api.requests.length, 0);

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
		emulator!.reset();
		foreign!.requests.length = 0;
	});
	afterAll(async () => {
		capture.restore();
		await Promise.all([emulator?.stop(), foreign?.stop()]);
		results.write();
	});

	const credentials = (overrides: Partial<TestCredentials> = {}): TestCredentials => ({
		baseUrl: emulator!.baseUrl,
		apiKey,
		requestsPerMinute: 0,
		...overrides,
	});

	async function runChecked(
		scenario: string,
		template: Template,
		setup: WorkflowSetup,
		creds = credentials(),
		secret = apiKey,
	) {
		const before = requestsSoFar();
		const result = await run(workflowFrom(template, setup), creds);
		const leakedTo = placesContaining(secret, {
			'execution data': JSON.stringify(result.run),
			'errors with their causes and stacks': inspect(result.run, { depth: null }),
			'requests to another origin': foreign!.text(),
		});
		const itemsIn = setup.items?.length ?? 1;
		const accounting = account(
			itemsIn,
			result.output(nodeNameOf(template)),
			template === 'listCalls',
		);
		// A workflow that stops fails the node's whole run: every item is in error.
		const stopped = result.error !== undefined;
		const row: ResultRow = {
			scenario,
			operation: OPERATION[template],
			itemsIn,
			success: stopped ? 0 : accounting.success.size,
			error: stopped ? itemsIn : accounting.error.size,
			requestsSent: requestsSoFar() - before,
			retries: 0,
			lost: stopped ? 0 : accounting.missing.length,
			leaked: leakedTo.length,
			problems: [
				...(stopped ? [] : accounting.problems),
				...leakedTo.map((place) => `the key appears in the ${place}`),
			],
		};
		results.add(order++, row);
		expect(row.problems).toEqual([]);
		return result;
	}

	async function withStubApi(
		answer: (request: StubRequest, res: ServerResponse) => void,
		test: (api: StubServer) => Promise<void>,
	) {
		const api = await StubServer.start(answer);
		stubApis.add(api);
		try {
			await test(api);
			const apiCalls = api.requests.filter((request) => request.url.startsWith('/v1/'));
			expect(apiCalls.map(authorizationOf)).toEqual(apiCalls.map(() => `Bearer ${apiKey}`));
		} finally {
			stubApis.delete(api);
			await api.stop();
		}
	}

	return {
		apiKey,
		capture,
		emulator: () => emulator!,
		foreign: () => foreign!,
		credentials,
		runChecked,
		withStubApi,
	};
}

/** The last test of a secrets suite: nothing the node logged during the file carries `keys`. */
export function expectNoKeyInLogs(capture: OutputCapture, keys: string[]): void {
	console.info('capture self-check');
	expect(capture.text()).toContain('capture self-check');
	for (const key of keys) expect(capture.text()).not.toContain(key);
}
