/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Traffic that only a real n8n shows: one key's budget shared by concurrent executions of one
 * n8n process, a user stopping an execution that waits on 429s, and recording downloads stored
 * in n8n's binary data store. Retries, 429 handling, the budgets services state in their
 * headers and pagination are node behaviour: the engine suite (test/engine) covers them.
 */
import * as fs from 'fs';
import * as path from 'path';
import { sleep } from 'n8n-workflow';

import { openSession, type Session } from '../../devkit/demo/session';
import { NODE_NAME, leads, parameters, nodeWorkflow, withItems } from '../../devkit/workflows';
import {
	nodeOutput,
	readDatabaseText,
	readStoredExecutions,
	toWebhookWorkflow,
	type CredentialJson,
} from '../../devkit/n8n';
import { DEMO_KEY_SCOPES, DEMO_KEYS, recordingBytes } from '../../devkit/emulator';

const importLead = parameters.importLead;

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
			keys: [...DEMO_KEY_SCOPES, { key: SHARED_KEY, scopes: ['leads:write'] }],
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

test('two concurrent executions of one n8n process with one key share its budget: no 429 at all', async () => {
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
	expect(requests.map((request) => request.status)).toEqual(Array(18).fill(201));
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
	const deadline = Date.now() + 20_000;
	while (session.emulator.requests.length < 4 && Date.now() < deadline) await sleep(100);
	const [running] = await readStoredExecutions(session.sandbox, workflowId);
	const stopped = await session.server.rest<{ status: string }>(
		'POST',
		`/executions/${running.id}/stop`,
	);
	expect(stopped.status).toBe('canceled');
	await answer;
	const sentBeforeStop = session.emulator.requests.length;
	await sleep(4000);
	expect(session.emulator.requests).toHaveLength(sentBeforeStop);
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

	test('stores each file as binary with its mime type and name', async () => {
		const callIds = ['call_000120', 'call_000117'];
		const result = await run(
			parameters.getRecording('={{ $json.id }}', true),
			callIds.map((id) => ({ id })),
		);
		expect(result.errors).toEqual([]);
		expect(result.success.map((item) => item.json.callId)).toEqual(callIds);
		for (const [index, item] of result.success.entries()) {
			const binary = item.binary?.data;
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
		expect(session.emulator.fileRequests.map((request) => request.status)).toEqual([200, 200]);
	});
});

test('no key appears in what n8n stored or logged', async () => {
	const database = await readDatabaseText(session.sandbox);
	const log = session.serverLog();
	// The executions above are stored (imported leads included), so the search has something to read.
	expect(database).toContain(leads(1)[0].phone);
	for (const key of [DEMO_KEYS.full, SHARED_KEY]) {
		expect(database.includes(key)).toBe(false);
		expect(log.includes(key)).toBe(false);
	}
});
