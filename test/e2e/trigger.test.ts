/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The "On New Call" polling trigger inside a real n8n 2.40.7, with the package installed from
 * its tarball, against the API emulator. The engine suite (test/engine/trigger.test.ts) covers
 * the logic in depth; this one checks what only n8n itself decides: when it polls, where it
 * keeps the position (static data in its database), what a failed activation or a failed
 * scheduled poll looks like, the editor's Fetch Test Event, binary data and what it stores.
 *
 * Polls are driven without waiting a minute (see trigger-helpers.ts): re-publishing runs one
 * poll, a restart runs one at start-up, and one test sets Poll Times to seconds just ahead so
 * n8n's own schedule fires twice within ~20 s. Every other workflow gets Poll Times that never
 * come up during a run, so no scheduled poll races the test.
 */
import * as fs from 'fs';
import * as path from 'path';
import { sleep } from 'n8n-workflow';

import { N8N_MAJOR, readDatabaseText } from '../../devkit/n8n';
import {
	aMinuteAfterNewest,
	beforeListRequest,
	emittedIds,
	listRequestsSince,
	oldestFirst,
	outputItems,
	pollTimesAtSeconds,
	TriggerStage,
	triggerWorkflow,
	type TriggerWorkflow,
} from './trigger-helpers';
import {
	DEMO_KEYS,
	PENDING_RECORDING_ANSWERS,
	recordingBytes,
	type CallRecord,
} from '../../devkit/emulator';

jest.setTimeout(120_000);

/** A well-formed key the service does not know: 401. */
const UNKNOWN_KEY = `pf_live_${'x'.repeat(43)}`;
const RECORDING_BYTES = 20_000;
const CREDENTIAL_NAME = 'Lead & Call Access';

let stage: TriggerStage;
let credentialId: string;

beforeAll(async () => {
	stage = await TriggerStage.open({
		rateLimit: false,
		seedCalls: 30,
		// Small pages, so a handful of new calls already spans several of them.
		maxPageSize: 4,
		defaultPageSize: 4,
		recordingBytes: RECORDING_BYTES,
	});
	credentialId = await stage.createCredential(CREDENTIAL_NAME, DEMO_KEYS.full);
}, 600_000);

afterEach(async () => {
	await stage?.unpublishAll();
	// A test that failed half-way may have left the credential with a revoked key.
	await stage?.setApiKey(credentialId, CREDENTIAL_NAME, DEMO_KEYS.full);
});

afterAll(async () => {
	await stage?.close();
});

const newestCall = () => stage.emulator.calls[0];
const sleepUntil = async (at: number) => await sleep(Math.max(0, at - Date.now()));
const deploy = (parameters: Record<string, unknown> = {}, settings?: Record<string, unknown>) =>
	stage.deploy(triggerWorkflow({ credentialId, parameters, settings }));

describe('activation', () => {
	test('records where the list stands and emits nothing', async () => {
		const mark = stage.emulator.requests.length;
		const workflow = await deploy();

		expect(await workflow.position()).toEqual({
			version: 1,
			queryKey: '[]',
			seenIds: stage.emulator.calls.slice(0, 4).map((call) => call.id),
			newestCreatedAt: newestCall().created_at,
			listOrder: 'newest',
		});
		// One page read: the first call is the newest and the page ends older than it.
		expect(listRequestsSince(stage.emulator, mark)).toHaveLength(1);
		expect(await workflow.waitForExecutions(0)).toEqual([]);
	});

	test("with Calls Since (in the workflow's timezone), activation emits the calls since then", async () => {
		const target = stage.emulator.calls[4];
		// The picker's form: wall-clock time without a zone. New York is UTC-5 in January 2025.
		const since = new Date(Date.parse(target.created_at) - 5 * 3600_000).toISOString().slice(0, 19);
		const workflow = await deploy(
			{ options: { callsSince: since } },
			{ timezone: 'America/New_York' },
		);

		const [execution] = await workflow.waitForExecutions(1);
		expect(execution.mode).toBe('trigger');
		expect(emittedIds(execution)).toEqual(oldestFirst(stage.emulator.calls.slice(0, 5)));
		await workflow.poll();
		expect(await workflow.waitForExecutions(1)).toHaveLength(1);
	});
});

describe('later polls', () => {
	let workflow: TriggerWorkflow;
	beforeEach(async () => {
		workflow = await deploy();
	});

	test('emit each new call once, oldest first', async () => {
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

	test('calls across page boundaries and sharing a creation time are each emitted once', async () => {
		const { emulator } = stage;
		// 10 new calls, 4 a page: six created at the same instant straddle the first boundary.
		const before = emulator.addCalls(2);
		const tied = emulator.addCalls(6, { created_at: aMinuteAfterNewest(emulator) });
		const after = emulator.addCalls(2);
		const mark = emulator.requests.length;
		await workflow.poll();
		const [first] = await workflow.waitForExecutions(1);
		// Calls of one instant come in the order they were listed in, oldest listed last.
		expect(emittedIds(first)).toEqual([before, tied, after].flatMap(oldestFirst));
		// Pages 1-2 are all new; page 3 ends with an already-known older call, so it stops there.
		expect(listRequestsSince(emulator, mark)).toHaveLength(3);

		// Calls created at the very instant of the newest handled call are still new.
		const sameInstant = emulator.addCalls(2, { created_at: newestCall().created_at });
		await workflow.poll();
		const [, second] = await workflow.waitForExecutions(2);
		expect(emittedIds(second)).toEqual(oldestFirst(sameInstant));

		await workflow.poll();
		expect(await workflow.waitForExecutions(2)).toHaveLength(2);
	});

	test('calls that arrive while a poll is paging are emitted by the next poll, once', async () => {
		const { emulator } = stage;
		const first = emulator.addCalls(9);
		let during: CallRecord[] = [];
		// Just before the API answers the poll's second page.
		beforeListRequest(emulator, 2, () => (during = emulator.addCalls(3)));
		await workflow.poll();
		const [one] = await workflow.waitForExecutions(1);
		expect(during).toHaveLength(3);
		expect(emittedIds(one)).toEqual(oldestFirst(first));

		await workflow.poll();
		const [, two] = await workflow.waitForExecutions(2);
		expect(emittedIds(two)).toEqual(oldestFirst(during));
		await workflow.poll();
		expect(await workflow.waitForExecutions(2)).toHaveLength(2);
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

describe("n8n's own schedule", () => {
	test('a scheduled poll emits the new calls and saves the position in the database', async () => {
		const { emulator } = stage;
		// One poll a minute, ~12 s from now: time to publish first. (A poll that fails on a
		// revoked key is covered by the activation test below and by the engine suite; driving
		// it from the wall clock here raced the credential update.)
		const first = (new Date().getUTCSeconds() + 12) % 60;
		const workflow = await deploy({ pollTimes: pollTimesAtSeconds(first) });
		const ticked = emulator.addCalls(2);
		const [tick] = await workflow.waitForExecutions(1, 75_000);
		expect(tick.mode).toBe('trigger');
		expect(emittedIds(tick)).toEqual(oldestFirst(ticked));

		// Re-publishing reads the position from the database. Had the scheduled poll's
		// position not been saved there, this poll would emit the first calls again.
		const later = emulator.addCalls(1);
		await workflow.poll();
		const executions = await workflow.waitForExecutions(2);
		expect(emittedIds(executions[1])).toEqual(oldestFirst(later));
	});
});

describe('errors', () => {
	test('a 401 fails activation with a clear message; once the key is fixed nothing was lost', async () => {
		const { emulator } = stage;
		const workflow = await deploy();
		const pending = emulator.addCalls(2);
		await stage.setApiKey(credentialId, CREDENTIAL_NAME, UNKNOWN_KEY);
		const mark = emulator.requests.length;

		await workflow.deactivate();
		const status = await workflow.activate();
		const message =
			'There was a problem activating the workflow: "API key missing or invalid (401): paste a valid key into the credential; the old one may have been revoked"';
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
});

describe('Fetch Test Event', () => {
	test('returns the most recent call and leaves the position alone', async () => {
		const workflow = await deploy();
		const position = await workflow.position();
		const added = stage.emulator.addCalls(2);

		const test = await workflow.fetchTestEvent();
		expect(test.mode).toBe('manual');
		expect(test.status).toBe('success');
		expect(emittedIds(test)).toEqual([added[0].id]);
		expect(await workflow.position()).toEqual(position);

		// The calls it showed are still new for the next poll.
		await workflow.poll();
		const executions = await workflow.waitForExecutions(2);
		expect(emittedIds(executions[1])).toEqual(oldestFirst(added));
	});
});

describe('Download Recording', () => {
	test('attaches each recording as binary data that the next node can write', async () => {
		const { emulator, sandbox } = stage;
		const workflow = await stage.deploy(
			triggerWorkflow({
				credentialId,
				parameters: {
					downloadRecording: true,
					binaryPropertyName: 'audio',
					// The missed call comes at once (not after the wait) without a file.
					options: { waitForRecording: 0 },
				},
				nodes: [
					{
						id: 'write',
						name: 'Write',
						type: 'n8n-nodes-base.readWriteFile',
						typeVersion: 1.1,
						position: [220, 0],
						onError: 'continueErrorOutput',
						parameters: {
							operation: 'write',
							fileName: `=${sandbox.filesDir}/trigger-{{ $json.id }}.mp3`,
							dataPropertyName: 'audio',
							options: {},
						},
					},
				],
				connections: { 'On New Call': { main: [[{ node: 'Write', type: 'main', index: 0 }]] } },
			}),
		);
		const [missed] = emulator.addCalls(1, { status: 'missed', has_recording: false });
		const [recorded] = emulator.addCalls(1, { status: 'completed', has_recording: true });
		const fileMark = emulator.fileRequests.length;

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
		// The signed URL is fetched without the API key.
		const downloads = emulator.fileRequests.slice(fileMark);
		expect(downloads).toHaveLength(1);
		expect(downloads[0].headers.authorization).toBeUndefined();

		// The test event comes with the file too.
		const test = await workflow.fetchTestEvent();
		expect(outputItems(test)[0].binary?.audio?.fileName).toBe(`${recorded.id}.mp3`);
	});
});

describe.each(PENDING_RECORDING_ANSWERS)(
	'Download Recording, the API answering %s while a recording is processed',
	(pendingAnswer) => {
		afterEach(() => stage.emulator.setRecordingProcessing({ delayMs: 0 }));

		test('late recordings come with their file, the missed call once without one after the wait; no poll fails', async () => {
			const { emulator } = stage;
			// Recordings ready 2 s after their calls appear; the trigger waits up to 6 s.
			const delayMs = 2_000;
			const waitMs = 6_000;
			const workflow = await deploy({
				downloadRecording: true,
				options: { waitForRecording: waitMs / 60_000 },
			});
			emulator.setRecordingProcessing({ delayMs, pendingAnswer });
			const added = Date.now();
			const late = emulator.addCalls(2, { status: 'completed', has_recording: true });
			const [missed] = emulator.addCalls(1, { status: 'missed', has_recording: false });

			// Each poll (a re-publication) starts from the position n8n stored in its database.
			await workflow.poll();
			expect(await workflow.waitForExecutions(0)).toEqual([]);
			expect((await workflow.position())?.heldCalls).toHaveLength(3);

			await sleepUntil(added + delayMs + 200);
			await workflow.poll();
			const [withFiles] = await workflow.waitForExecutions(1);
			expect(emittedIds(withFiles)).toEqual(oldestFirst(late));
			for (const item of outputItems(withFiles)) {
				expect(item.json.recordingMissing).toBe(false);
				expect(item.binary?.data?.fileName).toBe(`${String(item.json.id)}.mp3`);
			}

			// The wait counts from the first poll's question, a moment after `added`.
			await sleepUntil(added + waitMs + 1_500);
			await workflow.poll();
			await workflow.poll();
			const executions = await workflow.waitForExecutions(2);
			expect(
				outputItems(executions[1]).map((item) => [item.json.id, item.json.recordingMissing]),
			).toEqual([[missed.id, true]]);
			expect(outputItems(executions[1])[0].binary).toBeUndefined();
			expect(executions.map((execution) => execution.status)).toEqual(['success', 'success']);
			expect((await workflow.position())?.heldCalls).toBeUndefined();
		});
	},
);

describe('secrets', () => {
	// Last on purpose: by now n8n has stored successful, failed, manual and binary executions,
	// activation errors and a restart's worth of log.
	test('the API key never appears in what n8n stored or logged', async () => {
		const database = await readDatabaseText(stage.sandbox);
		const log = stage.serverLog();
		expect(database).toContain(newestCall().id); // the dump does hold the executions
		for (const key of [DEMO_KEYS.full, UNKNOWN_KEY]) {
			expect(database).not.toContain(key);
			expect(log).not.toContain(key);
		}
	});
});
