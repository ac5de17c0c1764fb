/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, no-console -- dev code, not in the package n8n loads: node rules do not apply */
import type { IncomingMessage, ServerResponse } from 'http';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import { format, inspect } from 'util';

import type { IDataObject } from 'n8n-workflow';

import type { Emulator, EmulatorOptions } from '../../../devkit/emulator';
import { startEmulator } from '../../../devkit/emulator';
import type { WorkflowSetup } from '../../../devkit/engine/fixtures';
import { nodeName, run, workflowFrom } from '../../../devkit/engine/fixtures';
import type { TestCredentials } from '../../../devkit/engine/harness';
import { account, placesContaining } from '../../../devkit/reliability/audit';
import { keyWithAllScopes, sentinelKey } from '../../../devkit/reliability/keys';
import type { ResultRow } from '../../../devkit/reliability/results';
import { collectResults, emptyRow } from '../../../devkit/reliability/results';

/**
 * Records everything written to the console, stdout and stderr until restored (n8n's
 * logger writes through the console), instead of printing it. Used to check that no log line
 * carries the API key; the logs of the faults these suites provoke are expected, so a passing
 * run prints only jest's output. Jest reports its results after the file, once restored.
 */
export function captureOutput() {
	const chunks: string[] = [];
	const record = (...args: unknown[]) => void chunks.push(format(...args));
	const write = (chunk: unknown, ...rest: unknown[]) => {
		chunks.push(String(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array)));
		// Honour a write callback, as the stream would.
		(rest.find((arg) => typeof arg === 'function') as (() => void) | undefined)?.();
		return true;
	};
	const spies = [
		...(['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((method) =>
			jest.spyOn(console, method).mockImplementation(record),
		),
		...[process.stdout, process.stderr].map((stream) =>
			jest.spyOn(stream, 'write').mockImplementation(write),
		),
	];
	return {
		text: () => chunks.join('\n'),
		restore: () => spies.forEach((spy) => spy.mockRestore()),
	};
}

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
 * A small HTTP server on 127.0.0.1 that records every request it gets: stands in for an API
 * that answers as a test needs (a Link header, a redirect elsewhere).
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
 * Shared set-up of the reliability suites but the fault matrix: one emulator per file (a
 * sentinel key with all scopes), reset before each test, whose file host is the other origin
 * that must never see the key; output captured for the whole file; RELIABILITY.md rows.
 */
export function useHarness(suite: string, emulatorOptions: EmulatorOptions = {}) {
	const apiKey = sentinelKey(suite);
	const results = collectResults(suite);
	let capture: ReturnType<typeof captureOutput> | undefined;
	let emulator: Emulator | undefined;
	const stubApis = new Set<StubServer>();
	let order = 0;
	const requestsSoFar = () =>
		emulator!.requests.length +
		emulator!.fileRequests.length +
		[...stubApis].reduce((sum, stub) => sum + stub.requests.length, 0);

	beforeAll(async () => {
		capture = captureOutput();
		const keys = keyWithAllScopes(apiKey);
		emulator = await startEmulator({ rateLimit: false, keys, ...emulatorOptions });
	});
	beforeEach(() => emulator!.reset());
	afterAll(async () => {
		capture?.restore();
		await emulator?.stop();
		results.write();
	});

	const credentials = (overrides: Partial<TestCredentials> = {}): TestCredentials => ({
		baseUrl: emulator!.baseUrl,
		apiKey,
		requestsPerMinute: 0,
		...overrides,
	});

	/** A row of its own, or a fuzz property's, adding up its runs (see `property`). */
	const newRow = (scenario: string, operation: string) => {
		const row = emptyRow(scenario, operation);
		results.add(order++, row);
		return row;
	};

	/**
	 * Runs a workflow: each item in exactly one output with a clear message, `secret` nowhere in
	 * what it produced. Counted in its own row named `scenario`, or in a property's row.
	 */
	async function runChecked(
		scenario: string | ResultRow,
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
			'requests to another origin': JSON.stringify(emulator!.fileRequests),
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
		const row = typeof scenario === 'string' ? newRow(scenario, nodeName(workflow)) : scenario;
		if (typeof scenario === 'string') row.problems = problems;
		row.itemsIn += itemsIn;
		row.error += stopped ? itemsIn : accounting.error.size;
		row.success += stopped ? 0 : itemsIn - accounting.error.size;
		row.requestsSent += requestsSoFar() - before;
		row.lost += stopped ? 0 : accounting.missing.length;
		row.leaked += leakedTo.length;
		expect(problems).toEqual([]);
		return { ...result, accounting };
	}

	/**
	 * A fuzz property's row, its runs, and its body wrapped to record its first failures in the
	 * row before fast-check shrinks them.
	 */
	function property(scenario: string, operation: string) {
		const row = newRow(scenario, operation);
		const recorded =
			<A extends unknown[]>(body: (...args: A) => Promise<void>) =>
			async (...args: A) => {
				try {
					await body(...args);
				} catch (error) {
					const message = String((error as Error).message).slice(0, 300);
					if (row.problems!.length < 5) row.problems!.push(message);
					throw error;
				}
			};
		/** One run of the property: the emulator reset first, and the workflow must not stop. */
		const runOnce = async (template: Template, items: object[], parameters: IDataObject) => {
			emulator!.reset();
			const result = await runChecked(row, template, { items: items as IDataObject[], parameters });
			expect(result.error).toBeUndefined();
			return { ...result, requests: emulator!.requests };
		};
		return { recorded, runOnce };
	}

	/** Runs `test` against a stand-in API answering as `answer` says; checks what reached it. */
	async function withStubApi(
		answer: StubHandler,
		test: (api: StubServer, credentials: TestCredentials) => Promise<void>,
	) {
		const api = await startStub(answer);
		stubApis.add(api);
		try {
			await test(api, credentials({ baseUrl: api.url }));
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
		expect(capture!.text()).toContain('capture self-check');
		for (const key of keys) expect(capture!.text()).not.toContain(key);
	}

	return {
		apiKey,
		emulator: () => emulator!,
		credentials,
		runChecked,
		property,
		withStubApi,
		expectNoKeyInLogs,
	};
}
