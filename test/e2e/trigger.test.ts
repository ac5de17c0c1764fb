/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The "On New Call" polling trigger inside a real n8n, with the package installed from its
 * tarball, against the API emulator. The engine suites (test/engine/trigger*.test.ts) cover the
 * logic in depth (Fetch Test Event leaving the position alone too); this one checks what only
 * n8n itself decides: when it polls, where it keeps the position (static data in its database),
 * what a failed activation looks like, the editor's Fetch Test Event route, the binary data a
 * next node writes, and what it stores.
 *
 * Polls are driven without waiting a minute (see trigger-helpers.ts): re-publishing runs one
 * poll, a restart runs one at start-up, and one test sets Poll Times to seconds just ahead so
 * n8n's own schedule fires within ~20 s. Every other workflow gets Poll Times that never
 * come up during a run, so no scheduled poll races the test.
 */
import * as fs from 'fs';
import * as path from 'path';

import { N8N_MAJOR, readDatabaseText } from '../../devkit/n8n';
import {
	emittedIds,
	listRequestsSince,
	oldestFirst,
	outputItems,
	pollTimesAtSeconds,
	TriggerStage,
	triggerWorkflow,
	type TriggerWorkflow,
} from './trigger-helpers';
import { DEMO_KEYS, recordingBytes, type CallRecord } from '../../devkit/emulator';

jest.setTimeout(120_000);

const CREDENTIAL_NAME = 'Lead & Call Access';
/** A well-formed key the service does not know: 401. */
const UNKNOWN_KEY = `pf_live_${'x'.repeat(43)}`;
const RECORDING_BYTES = 20_000;

let stage: TriggerStage;
let credentialId = '';
beforeAll(async () => {
	// Small pages, so a handful of new calls already spans several of them.
	const list = { seedCalls: 30, maxPageSize: 4, defaultPageSize: 4 };
	stage = await TriggerStage.open({ rateLimit: false, recordingBytes: RECORDING_BYTES, ...list });
	credentialId = await stage.createCredential(CREDENTIAL_NAME, DEMO_KEYS.full);
}, 600_000);
afterEach(async () => {
	await stage?.unpublishAll();
	// A test that failed half-way may have left the credential with a revoked key.
	await stage?.setApiKey(credentialId, CREDENTIAL_NAME, DEMO_KEYS.full);
});
afterAll(async () => await stage?.close());

const deploy = (parameters: Record<string, unknown> = {}) =>
	stage.deploy(triggerWorkflow({ credentialId, parameters }));

describe('polls', () => {
	let workflow: TriggerWorkflow;
	beforeEach(async () => {
		workflow = await deploy();
	});

	test('emit each new call once, oldest first, keeping the position in the database', async () => {
		expect(await workflow.waitForExecutions(0)).toEqual([]);
		const added = stage.emulator.addCalls(3);
		await workflow.poll();
		const [execution] = await workflow.waitForExecutions(1);
		expect(execution.status).toBe('success');
		expect(execution.mode).toBe('trigger');
		expect(emittedIds(execution)).toEqual(oldestFirst(added));

		await workflow.poll();
		expect(await workflow.waitForExecutions(1)).toHaveLength(1);
		expect((await workflow.position())?.seenIds.slice(0, 3)).toEqual(added.map((c) => c.id));
	});

	test('an n8n restart between polls loses and duplicates nothing', async () => {
		const { emulator } = stage;
		const beforeStop = emulator.addCalls(2);
		await workflow.poll();
		await workflow.waitForExecutions(1);

		// Calls arrive while n8n is down; at start-up n8n re-activates the workflow, which polls.
		let whileDown: CallRecord[] = [];
		await stage.restart(() => {
			whileDown = emulator.addCalls(3);
		});
		await workflow.waitForExecutions(2);

		const afterStart = emulator.addCalls(1);
		await workflow.poll();
		const executions = await workflow.waitForExecutions(3);
		expect(executions.map(emittedIds)).toEqual([
			oldestFirst(beforeStop),
			oldestFirst(whileDown),
			oldestFirst(afterStart),
		]);
		expect(executions.every((execution) => execution.status === 'success')).toBe(true);
	});
});

test("a poll on n8n's own schedule emits the new calls and saves the position in the database", async () => {
	// One poll a minute, ~12 s from now: time to publish first.
	const first = (new Date().getUTCSeconds() + 12) % 60;
	const workflow = await deploy({ pollTimes: pollTimesAtSeconds(first) });
	const ticked = stage.emulator.addCalls(2);
	const [tick] = await workflow.waitForExecutions(1, 75_000);
	expect(tick.mode).toBe('trigger');
	expect(emittedIds(tick)).toEqual(oldestFirst(ticked));

	// Re-publishing reads the position from the database. Had the scheduled poll's
	// position not been saved there, this poll would emit the first calls again.
	const later = stage.emulator.addCalls(1);
	await workflow.poll();
	const executions = await workflow.waitForExecutions(2);
	expect(emittedIds(executions[1])).toEqual(oldestFirst(later));
});

test('a 401 fails activation with a clear message; once the key is fixed nothing was lost', async () => {
	const { emulator } = stage;
	const workflow = await deploy();
	const pending = emulator.addCalls(2);
	await stage.setApiKey(credentialId, CREDENTIAL_NAME, UNKNOWN_KEY);
	const mark = emulator.requests.length;

	await workflow.deactivate();
	const status = await stage.server.activateWorkflow(workflow.id);
	const message =
		'There was a problem activating the workflow: "API key missing or invalid (401): Invalid API key. Paste a valid key into the credential; the old one may have been revoked"';
	expect(status).toMatchObject({
		status: 'failed',
		triggers: [{ nodeId: 'trigger', status: 'failed', errorMessage: message }],
	});
	// 1.x answers the activation call with the message instead of logging it.
	if (N8N_MAJOR >= 2) expect(stage.serverLog()).toContain(message);
	// n8n 2.40.7 tries an activation 5 times (1, 2, 4, 8 s apart) before giving up; 1.x once.
	const attempts = listRequestsSince(emulator, mark);
	expect(attempts.map((request) => request.status)).toEqual(
		N8N_MAJOR >= 2 ? [401, 401, 401, 401, 401] : [401],
	);
	expect(await workflow.waitForExecutions(0)).toEqual([]);

	await stage.setApiKey(credentialId, CREDENTIAL_NAME, DEMO_KEYS.full);
	await workflow.poll();
	const [execution] = await workflow.waitForExecutions(1);
	expect(emittedIds(execution)).toEqual(oldestFirst(pending));
});

test('Download Recording attaches each recording as binary data that the next node can write', async () => {
	const { emulator, sandbox } = stage;
	const write = {
		id: 'write',
		name: 'Write',
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1.1,
		position: [220, 0] as [number, number],
		onError: 'continueErrorOutput',
		parameters: {
			operation: 'write',
			fileName: `=${sandbox.filesDir}/trigger-{{ $json.id }}.mp3`,
			dataPropertyName: 'audio',
			options: {},
		},
	};
	const workflow = await stage.deploy(
		triggerWorkflow({
			credentialId,
			// The missed call comes at once (not after the wait) without a file.
			parameters: {
				downloadRecording: true,
				binaryPropertyName: 'audio',
				options: { waitForRecording: 0 },
			},
			nodes: [write],
			connections: { 'On New Call': { main: [[{ node: 'Write', type: 'main', index: 0 }]] } },
		}),
	);
	const [missed] = emulator.addCalls(1, { status: 'missed', has_recording: false });
	const [recorded] = emulator.addCalls(1, { status: 'completed', has_recording: true });

	await workflow.poll();
	const [execution] = await workflow.waitForExecutions(1);
	const [missedItem, recordedItem] = outputItems(execution);
	expect(missedItem.json.id).toBe(missed.id);
	expect(missedItem.binary).toBeUndefined();
	expect(recordedItem.json.id).toBe(recorded.id);
	expect(recordedItem.binary?.audio).toMatchObject({
		mimeType: 'audio/mpeg',
		fileName: `${recorded.id}.mp3`,
	});
	const file = path.join(sandbox.filesDir, `trigger-${recorded.id}.mp3`);
	expect(fs.readFileSync(file).equals(recordingBytes(recorded.id, RECORDING_BYTES))).toBe(true);
	// The call without a recording reaches Write without a file and leaves by its error output.
	expect(outputItems(execution, 'Write', 1).map((item) => item.json.id)).toEqual([missed.id]);

	// Fetch Test Event, through the editor's route: the most recent call, with its file.
	const test = await workflow.fetchTestEvent();
	expect(test.mode).toBe('manual');
	expect(outputItems(test).map((item) => item.binary?.audio?.fileName)).toEqual([
		`${recorded.id}.mp3`,
	]);
});

// Last on purpose: by now n8n has stored successful, failed, manual and binary executions,
// activation errors and a restart's worth of log.
test('the API key never appears in what n8n stored or logged', async () => {
	const database = await readDatabaseText(stage.sandbox);
	const log = stage.serverLog();
	expect(database).toContain(stage.emulator.calls[0].id); // the dump does hold the executions
	for (const key of [DEMO_KEYS.full, UNKNOWN_KEY]) {
		expect(database).not.toContain(key);
		expect(log).not.toContain(key);
	}
});
