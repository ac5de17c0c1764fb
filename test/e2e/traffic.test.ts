/**
 * Traffic as a real n8n 2.40.7 runs it: 429 pause and resume, one key's budget shared by
 * concurrent executions in one n8n process, retries, pagination, and recording downloads
 * stored in n8n's binary data store.
 */
import * as fs from 'fs';
import * as path from 'path';

import { openSession, type Session } from '../../devkit/demo/session';
import {
	NODE_NAME,
	importLeadParameters as importLead,
	nodeWorkflow,
	withItems,
} from '../../devkit/demo/workflows';
import {
	nodeOutput,
	readDatabaseText,
	readStoredExecutions,
	toWebhookWorkflow,
	type CredentialJson,
} from '../../devkit/n8n';
import {
	DEMO_KEY_SCOPES,
	DEMO_KEYS,
	recordingBytes,
	startEmulator,
	type PaginationStyle,
	type RecordedRequest,
} from '../../devkit/emulator';

jest.setTimeout(120_000);

/** A key of its own, so no other test's pacing state touches the shared-budget test. */
const SHARED_KEY = `pf_live_${'e2eSharedBudget_'.padEnd(43, 's')}`;
const RECORDING_BYTES = 48 * 1024;

let session: Session;
beforeAll(async () => {
	session = await openSession({
		emulator: {
			rateLimit: false,
			recordingBytes: RECORDING_BYTES,
			keys: [
				...DEMO_KEY_SCOPES,
				{ key: SHARED_KEY, scopes: ['leads:write', 'calls:read', 'recordings:read'] },
			],
		},
	});
}, 600_000);
afterAll(async () => {
	await session?.close();
});
beforeEach(() => {
	session.emulator.reset();
	session.emulator.setRateLimit(false);
});

const full = () => session.credential('full', { apiKey: DEMO_KEYS.full });
const leads = (count: number, from = 0) =>
	Array.from({ length: count }, (_, i) => ({
		phone: `+1415555${String(1000 + from + i).padStart(4, '0')}`,
		name: `Lead ${from + i}`,
	}));
async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await condition())) {
		if (Date.now() > deadline) throw new Error('condition not met in time');
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}
const countStatus = (requests: RecordedRequest[], status: number) =>
	requests.filter((request) => request.status === status).length;

async function run(
	parameters: Record<string, unknown>,
	items: Array<Record<string, unknown>>,
	credential: CredentialJson = full(),
) {
	const workflow = nodeWorkflow({ parameters, credential, onError: 'continueErrorOutput' });
	const result = await session.server.runWorkflow(workflow, [credential], withItems(items));
	return {
		...result,
		success: nodeOutput(result.run, NODE_NAME, 0),
		errors: nodeOutput(result.run, NODE_NAME, 1),
	};
}

describe('rate limits', () => {
	test('429 + Retry-After pauses and retries the same request: nothing lost, nothing doubled', async () => {
		session.emulator.setRateLimit({ limit: 4, windowMs: 1000, algorithm: 'fixed-window' });
		const result = await run(importLead(), leads(12));
		expect(result.errors.map((item) => item.json.error)).toEqual([]);
		expect(result.success).toHaveLength(12);
		const requests = session.emulator.requests;
		expect(countStatus(requests, 429)).toBeGreaterThan(0);
		expect(countStatus(requests, 201)).toBe(12);
		expect([...session.emulator.leads.values()].map((lead) => lead.writes)).toEqual(
			Array(12).fill(1),
		);
	});

	test('Max Rate-Limit Wait turns an endless 429 into a clear item error', async () => {
		session.emulator.inject({ kind: 'status', status: 429, count: 50, retryAfter: '1' });
		const result = await run(importLead({ maxRateLimitWait: 2 }), leads(1));
		expect(result.success).toEqual([]);
		expect(String(result.errors[0]?.json.error)).toMatch(
			/Rate limit still exceeded \(429\) after waiting 2 s/,
		);
	});

	test('two concurrent executions with one key share its budget: no 429 at all', async () => {
		// 6 per 3 s on the server = the credentials' budget (120 per minute, in windows shortened
		// to 3 s). Two credentials holding the same key, in two workflows, run at the same time
		// in one n8n process.
		session.emulator.setRateLimit({ limit: 6, windowMs: 3000, algorithm: 'sliding-log' });
		const budget = { apiKey: SHARED_KEY, requestsPerMinute: 120, rateWindowSeconds: 3 };
		const first = session.credential('shared-a', budget);
		const second = session.credential('shared-b', budget);
		await session.server.createCredential(first);
		await session.server.createCredential(second);
		const [a, b] = await Promise.all([
			run(importLead(), leads(9, 0), first),
			run(importLead(), leads(9, 100), second),
		]);
		expect(a.success.length + b.success.length).toBe(18);
		const requests = session.emulator.requests;
		expect(countStatus(requests, 429)).toBe(0);
		expect(requests).toHaveLength(18);
		// Both nodes ran at the same time, yet the 18 requests took three windows: one budget.
		// Two budgets would have sent 12 at once and drawn 429s.
		const [spanA, spanB] = [a, b].map((r) => {
			const task = r.run.data.resultData.runData[NODE_NAME][0] as {
				startTime: number;
				executionTime: number;
			};
			return [task.startTime, task.startTime + task.executionTime];
		});
		expect(spanA[0] < spanB[1] && spanB[0] < spanA[1]).toBe(true);
		const span = requests[requests.length - 1].at - requests[0].at;
		expect(span).toBeGreaterThanOrEqual(2 * 3000);
	});
});

test('stopping an execution that waits on 429s ends the wait: nothing more is sent', async () => {
	// Without this the node would keep retrying for up to Max Rate-Limit Wait (5 minutes)
	// after the user pressed Stop. Only a real n8n aborts its executions this way.
	session.emulator.inject({ kind: 'status', status: 429, count: 1000, retryAfter: '2' });
	const credential = session.credential('cancel', { apiKey: DEMO_KEYS.full });
	await session.server.createCredential(credential);
	const hookPath = `cancel-${Date.now()}`;
	const workflow = nodeWorkflow({ parameters: importLead(), credential });
	const workflowId = await session.server.deployWorkflow(toWebhookWorkflow(workflow, hookPath));
	const answer = session.server.callWebhookWhenRegistered(hookPath, withItems(leads(2)));
	await until(async () => session.emulator.requests.length >= 4);
	const [running] = await readStoredExecutions(session.sandbox, workflowId);
	const stopped = await session.server.rest<{ status: string }>(
		'POST',
		`/executions/${running.id}/stop`,
	);
	expect(stopped.status).toBe('canceled');
	await answer;
	const sentBeforeStop = session.emulator.requests.length;
	await new Promise((resolve) => setTimeout(resolve, 4000));
	expect(session.emulator.requests).toHaveLength(sentBeforeStop);
});

test('a 503 is retried with backoff and the item succeeds', async () => {
	session.emulator.inject({ kind: 'status', status: 503, count: 2, path: '/v1/leads' });
	const result = await run(importLead(), leads(1));
	expect(result.success).toHaveLength(1);
	expect(session.emulator.requests.map((request) => request.status)).toEqual([503, 503, 201]);
});

describe('List Calls pagination', () => {
	const listCalls = (extra: Record<string, unknown>) => ({
		resource: 'call',
		operation: 'getAll',
		...extra,
	});
	const ids = (items: Array<{ json: Record<string, unknown> }>) => items.map((i) => i.json.id);
	const calls = () => session.emulator.requests.filter((request) => request.path === '/v1/calls');

	test('Return All follows every page: all 120 calls once, in list order', async () => {
		const result = await run(listCalls({ returnAll: true }), [{}]);
		expect(ids(result.success)).toEqual(session.emulator.calls.map((call) => call.id));
		expect(calls().map((request) => request.query.limit)).toEqual(['100', '100']);
		expect(calls()[1].query.cursor).toBeTruthy();
	});

	test.each([
		[30, ['30']],
		[120, ['100', '20']],
	])('a limit of %i fetches only the pages it needs', async (limit, pageSizes) => {
		const result = await run(listCalls({ returnAll: false, limit }), [{}]);
		expect(ids(result.success)).toEqual(session.emulator.calls.slice(0, limit).map((c) => c.id));
		expect(calls().map((request) => request.query.limit)).toEqual(pageSizes);
	});

	test('Query Parameters go with every page', async () => {
		const queryParameters = { parameters: [{ name: 'direction', value: 'inbound' }] };
		const result = await run(listCalls({ returnAll: true, options: { queryParameters } }), [{}]);
		const inbound = session.emulator.calls.filter((call) => call.direction === 'inbound');
		expect(ids(result.success)).toEqual(inbound.map((call) => call.id));
		expect(calls().every((request) => request.query.direction === 'inbound')).toBe(true);
	});

	test.each<PaginationStyle>(['array-link-header', 'results-next-url'])(
		'next pages given as %s are followed too',
		async (paginationStyle) => {
			const other = await startEmulator({ rateLimit: false, paginationStyle, maxPageSize: 50 });
			try {
				const credential = session.credential(`style-${paginationStyle}`, {
					apiKey: DEMO_KEYS.full,
					baseUrl: other.baseUrl,
				});
				const result = await run(listCalls({ returnAll: true }), [{}], credential);
				expect(ids(result.success)).toEqual(other.calls.map((call) => call.id));
				expect(other.requests.length).toBeGreaterThanOrEqual(3);
			} finally {
				await other.stop();
			}
		},
	);
});

describe('Get Recording with Download', () => {
	/**
	 * The bytes n8n keeps for a binary. Filesystem mode stores `<id path>` under
	 * <n8n folder>/storage (2.x), or binaryData when an older install left that folder.
	 */
	function storedBytes(id: string): Buffer {
		const relative = id.replace(/^filesystem-v2:/, '');
		const candidates = ['storage', 'binaryData'].map((folder) =>
			path.join(session.sandbox.userFolder, '.n8n', folder, relative),
		);
		const file = candidates.find((candidate) => fs.existsSync(candidate));
		if (!file) throw new Error(`binary ${id} not found in ${candidates.join(' or ')}`);
		return fs.readFileSync(file);
	}

	test('stores each file as binary with its mime type and name; the file host never sees the key', async () => {
		const callIds = ['call_000120', 'call_000117'];
		const parameters = {
			resource: 'recording',
			operation: 'get',
			callId: '={{ $json.id }}',
			download: true,
			binaryPropertyName: 'recording',
		};
		const result = await run(
			parameters,
			callIds.map((id) => ({ id })),
		);
		expect(result.errors).toEqual([]);
		expect(result.success.map((item) => item.json.callId)).toEqual(callIds);
		for (const [index, item] of result.success.entries()) {
			const binary = item.binary?.recording;
			expect(binary).toMatchObject({
				mimeType: 'audio/mpeg',
				fileName: `${callIds[index]}.mp3`,
				fileExtension: 'mp3',
			});
			expect(item.pairedItem).toEqual({ item: index });
			expect(
				storedBytes(String(binary?.id)).equals(recordingBytes(callIds[index], RECORDING_BYTES)),
			).toBe(true);
		}
		const files = session.emulator.fileRequests;
		expect(files.map((request) => request.status)).toEqual([200, 200]);
		expect(files.map((request) => request.headers.authorization)).toEqual([undefined, undefined]);
		expect(session.emulator.requests.map((request) => request.headers.authorization)).toEqual([
			`Bearer ${DEMO_KEYS.full}`,
			`Bearer ${DEMO_KEYS.full}`,
		]);
	});
});

test('no key appears in what n8n stored or logged', async () => {
	const database = await readDatabaseText(session.sandbox);
	const log = session.serverLog();
	expect(database).toContain('Rate limit still exceeded (429)');
	for (const key of [DEMO_KEYS.full, SHARED_KEY]) {
		expect(database.includes(key)).toBe(false);
		expect(log.includes(key)).toBe(false);
	}
});
