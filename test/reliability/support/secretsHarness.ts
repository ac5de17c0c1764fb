/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
import type { IncomingMessage, ServerResponse } from 'http';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import { inspect } from 'util';

import type { Emulator } from '../../../devkit/emulator';
import { startEmulator } from '../../../devkit/emulator';
import type { WorkflowSetup } from '../../../devkit/engine/fixtures';
import { nodeName, run, workflowFrom } from '../../../devkit/engine/fixtures';
import type { TestCredentials } from '../../../devkit/engine/harness';
import { account, placesContaining } from '../../../devkit/reliability/audit';
import { keyWithAllScopes, sentinelKey } from '../../../devkit/reliability/keys';
import { ResultsCollector } from '../../../devkit/reliability/results';
import { OutputCapture } from './capture';

export type Template = Parameters<typeof workflowFrom>[0];
export interface StubRequest {
	method?: string;
	url: string;
	headers: IncomingMessage['headers'];
	body: string;
}
type StubHandler = (request: StubRequest, res: ServerResponse) => void;
export type StubServer = Awaited<ReturnType<typeof startStub>>;

export const authorizationOf = (request: { headers: Record<string, unknown> }) =>
	request.headers.authorization;

export function reply(res: ServerResponse, status: number, headers: object, body = ''): void {
	res.writeHead(status, { 'Content-Length': String(Buffer.byteLength(body)), ...headers });
	res.end(body);
}

/**
 * A small HTTP server on 127.0.0.1 that records every request it gets: stands in for a
 * foreign origin (to see what reaches it) or for an API that redirects elsewhere.
 */
async function startStub(handler: StubHandler) {
	const requests: StubRequest[] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			const request = { method: req.method, url: req.url ?? '/', headers: req.headers, body };
			requests.push(request);
			handler(request, res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		requests,
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		stop: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/**
 * Shared set-up of the secrets suites: one emulator (a sentinel key with all scopes) and one
 * foreign origin per file, reset before each test; output captured for the whole file; a
 * RELIABILITY.md row per run.
 */
export function useSecretsHarness(suite: string) {
	const apiKey = sentinelKey(suite);
	const results = new ResultsCollector(suite);
	const capture = new OutputCapture();
	let emulator: Emulator | undefined;
	/** Another origin: a next-page or redirect target that must never see the key. */
	let foreign: StubServer | undefined;
	const stubApis = new Set<StubServer>();
	let order = 0;
	const requestsSoFar = () =>
		emulator!.requests.length +
		emulator!.fileRequests.length +
		[foreign!, ...stubApis].reduce((sum, stub) => sum + stub.requests.length, 0);

	beforeAll(async () => {
		capture.install();
		const keys = keyWithAllScopes(apiKey);
		emulator = await startEmulator({ rateLimit: false, keys, seedCalls: 10, recordingBytes: 4096 });
		foreign = await startStub((_request, res) =>
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

	/** Runs a workflow, asserts `secret` is nowhere in what it produced, and records a row. */
	async function runChecked(
		scenario: string,
		template: Template,
		setup: WorkflowSetup,
		creds = credentials(),
		secret = apiKey,
	) {
		const before = requestsSoFar();
		const workflow = workflowFrom(template, setup);
		const result = await run(workflow, creds);
		const leakedTo = placesContaining(secret, {
			'execution data': JSON.stringify(result.run),
			'errors with their causes and stacks': inspect(result.run, { depth: null }),
			'requests to another origin': JSON.stringify(foreign!.requests),
		});
		const itemsIn = setup.items?.length ?? 1;
		const output = result.output(nodeName(workflow));
		const accounting = account(itemsIn, output, template === 'listCalls');
		// A workflow that stops fails the node's whole run: every item is in error.
		const stopped = result.error !== undefined;
		const problems = [
			...(stopped ? [] : accounting.problems),
			...leakedTo.map((place) => `the key appears in the ${place}`),
		];
		results.add(order++, {
			scenario,
			operation: nodeName(workflow),
			itemsIn,
			success: stopped ? 0 : accounting.success.size,
			error: stopped ? itemsIn : accounting.error.size,
			requestsSent: requestsSoFar() - before,
			retries: 0,
			lost: stopped ? 0 : accounting.missing.length,
			leaked: leakedTo.length,
			problems,
		});
		expect(problems).toEqual([]);
		return result;
	}

	/** Runs `test` against a stand-in API answering as `answer` says; checks what reached it. */
	async function withStubApi(answer: StubHandler, test: (api: StubServer) => Promise<void>) {
		const api = await startStub(answer);
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

	/** The last test of a suite: nothing the node logged during the file carries `keys`. */
	function expectNoKeyInLogs(keys: string[]): void {
		console.info('capture self-check');
		expect(capture.text()).toContain('capture self-check');
		for (const key of keys) expect(capture.text()).not.toContain(key);
	}

	return {
		apiKey,
		emulator: () => emulator!,
		foreign: () => foreign!,
		credentials,
		runChecked,
		withStubApi,
		expectNoKeyInLogs,
	};
}
