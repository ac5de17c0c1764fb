/**
 * The "On New Call" polling trigger inside a real n8n 2.40.7, with the package installed from
 * its tarball, against the API emulator. The engine suite (test/engine/trigger.test.ts) covers
 * the logic in depth; this one checks what only n8n itself decides: when it polls, where it
 * keeps the position (static data in its database), what a failed activation or a failed
 * scheduled poll looks like, the editor's Fetch Test Event and what it stores (recordings:
 * trigger-recordings.test.ts).
 *
 * Polls are driven without waiting a minute (see trigger-helpers.ts): re-publishing runs one
 * poll, a restart runs one at start-up, and one test sets Poll Times to seconds just ahead so
 * n8n's own schedule fires twice within ~20 s. Every other workflow gets Poll Times that never
 * come up during a run, so no scheduled poll races the test.
 */

import { N8N_MAJOR, readDatabaseText } from '../../devkit/n8n';
import {
	aMinuteAfterNewest,
	beforeListRequest,
	emittedIds,
	listRequestsSince,
	oldestFirst,
	pollTimesAtSeconds,
	triggerWorkflow,
	type TriggerWorkflow,
} from './trigger-helpers';
import { CREDENTIAL_NAME, useTriggerStage } from './trigger-stage';
import { DEMO_KEYS, type CallRecord } from '../../devkit/emulator';

jest.setTimeout(120_000);

/** A well-formed key the service does not know: 401. */
const UNKNOWN_KEY = `pf_live_${'x'.repeat(43)}`;
const trigger = useTriggerStage({
	rateLimit: false,
	seedCalls: 30,
	// Small pages, so a handful of new calls already spans several of them.
	maxPageSize: 4,
	defaultPageSize: 4,
});

const newestCall = () => trigger.stage().emulator.calls[0];
const deploy = (parameters: Record<string, unknown> = {}, settings?: Record<string, unknown>) =>
	trigger
		.stage()
		.deploy(triggerWorkflow({ credentialId: trigger.credentialId(), parameters, settings }));

describe('activation', () => {
	test('records where the list stands and emits nothing', async () => {
		const mark = trigger.stage().emulator.requests.length;
		const workflow = await deploy();

		expect(await workflow.position()).toEqual({
			version: 1,
			queryKey: '[]',
			seenIds: trigger
				.stage()
				.emulator.calls.slice(0, 4)
				.map((call) => call.id),
			newestCreatedAt: newestCall().created_at,
			listOrder: 'newest',
		});
		// One page read: the first call is the newest and the page ends older than it.
		expect(listRequestsSince(trigger.stage().emulator, mark)).toHaveLength(1);
		expect(await workflow.waitForExecutions(0)).toEqual([]);
	});

	test("with Calls Since (in the workflow's timezone), activation emits the calls since then", async () => {
		const target = trigger.stage().emulator.calls[4];
		// The picker's form: wall-clock time without a zone. New York is UTC-5 in January 2025.
		const since = new Date(Date.parse(target.created_at) - 5 * 3600_000).toISOString().slice(0, 19);
		const workflow = await deploy(
			{ options: { callsSince: since } },
			{ timezone: 'America/New_York' },
		);

		const [execution] = await workflow.waitForExecutions(1);
		expect(execution.mode).toBe('trigger');
		expect(emittedIds(execution)).toEqual(oldestFirst(trigger.stage().emulator.calls.slice(0, 5)));
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
		const added = trigger.stage().emulator.addCalls(3);
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
		const { emulator } = trigger.stage();
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
		const { emulator } = trigger.stage();
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
		const { emulator } = trigger.stage();
		const beforeStop = emulator.addCalls(2);
		await workflow.poll();
		await workflow.waitForExecutions(1);

		// Calls arrive while n8n is down; at start-up n8n re-activates the workflow, which polls.
		let whileDown: CallRecord[] = [];
		await trigger.stage().restart(() => {
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
		const { emulator } = trigger.stage();
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
		const { emulator } = trigger.stage();
		const workflow = await deploy();
		const pending = emulator.addCalls(2);
		await trigger.stage().setApiKey(trigger.credentialId(), CREDENTIAL_NAME, UNKNOWN_KEY);
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
		if (N8N_MAJOR >= 2) expect(trigger.stage().serverLog()).toContain(message);
		// n8n 2.40.7 tries an activation 5 times (1, 2, 4, 8 s apart) before giving up; 1.x once.
		const attempts = listRequestsSince(emulator, mark);
		expect(attempts.map((request) => request.status)).toEqual(
			N8N_MAJOR >= 2 ? [401, 401, 401, 401, 401] : [401],
		);
		expect(await workflow.waitForExecutions(0)).toEqual([]);

		await trigger.stage().setApiKey(trigger.credentialId(), CREDENTIAL_NAME, DEMO_KEYS.full);
		await workflow.poll();
		const [execution] = await workflow.waitForExecutions(1);
		expect(emittedIds(execution)).toEqual(oldestFirst(pending));
	});
});

describe('Fetch Test Event', () => {
	test('returns the most recent call and leaves the position alone', async () => {
		const workflow = await deploy();
		const position = await workflow.position();
		const added = trigger.stage().emulator.addCalls(2);

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

describe('secrets', () => {
	// Last on purpose: by now n8n has stored successful, failed, manual and binary executions,
	// activation errors and a restart's worth of log.
	test('the API key never appears in what n8n stored or logged', async () => {
		const database = await readDatabaseText(trigger.stage().sandbox);
		const log = trigger.stage().serverLog();
		expect(database).toContain(newestCall().id); // the dump does hold the executions
		for (const key of [DEMO_KEYS.full, UNKNOWN_KEY]) {
			expect(database).not.toContain(key);
			expect(log).not.toContain(key);
		}
	});
});
