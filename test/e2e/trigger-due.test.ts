/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The trigger's promise in a real n8n, installed from the tarball: a call stays due until an
 * execution with it succeeded (n8n's own run outcome, read from the done promise), a call listed
 * late comes once (Look Back), and, under n8n's durable scheduler (2.x), no call made after
 * publishing is lost although n8n keeps nothing of the check it runs at publishing, and n8n killed
 * in the middle of a scheduled check repeats at most one execution's calls. The engine suite
 * (test/engine/triggerDue.test.ts) covers the rules in depth.
 */
import * as fs from 'fs';
import * as path from 'path';
import { sleep } from 'n8n-workflow';

import { N8N_MAJOR, startN8nServer } from '../../devkit/n8n';
import { DEMO_KEYS, type CallRecord } from '../../devkit/emulator';
import { exportToDiskWorkflow } from '../../devkit/nightlyExport';
import { emittedIds, oldestFirst, TriggerStage, triggerWorkflow } from './trigger-helpers';

jest.setTimeout(240_000);

/** Fails its execution while a marked call comes for the first time, as a full disk would. */
const failFirstTime = {
	name: 'Fail First Time',
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	position: [220, 0] as [number, number],
	parameters: {
		jsCode:
			"if ($input.all().some((item) => item.json.direction === 'marked' && item.json.failedExecutions === undefined)) throw new Error('Disk full');\nreturn $input.all();",
	},
};

async function openStage(env?: Record<string, string>) {
	const stage = await TriggerStage.open({ rateLimit: false, seedCalls: 10 }, { env });
	const credentialId = await stage.createCredential('Lead & Call Access', DEMO_KEYS.full);
	return { stage, credentialId };
}

describe('an execution that fails', () => {
	let opened: Awaited<ReturnType<typeof openStage>>;
	beforeAll(async () => (opened = await openStage()), 600_000);
	afterAll(async () => await opened?.stage.close());

	test('its calls come again at the next check, once, marked; then nothing more', async () => {
		const { stage, credentialId } = opened;
		const workflow = await stage.deploy(
			triggerWorkflow({
				credentialId,
				nodes: [failFirstTime],
				connections: {
					'On New Call': { main: [[{ node: failFirstTime.name, type: 'main', index: 0 }]] },
				},
			}),
		);
		const marked = { direction: 'marked' } as unknown as Partial<CallRecord>;
		const added = stage.emulator.addCalls(2, marked);
		await workflow.poll();
		const [failed] = await workflow.waitForExecutions(1);
		expect(failed.status).toBe('error');
		expect(emittedIds(failed)).toEqual(oldestFirst(added));

		await workflow.poll();
		const withCalls = (await workflow.waitForExecutions(2)).filter(
			(execution) => emittedIds(execution).length > 0,
		);
		expect(withCalls.map((execution) => execution.status)).toEqual(['error', 'success']);
		expect(emittedIds(withCalls[1])).toEqual(oldestFirst(added));

		await workflow.poll();
		const after = await workflow.waitForExecutions(2);
		expect(after.filter((execution) => emittedIds(execution).length > 0)).toHaveLength(2);
	});

	test('a call listed late, 150 calls deep, about 38 minutes before the newest: it comes once', async () => {
		const { stage, credentialId } = opened;
		const workflow = await stage.deploy(triggerWorkflow({ credentialId }));
		// 150 calls 15 s apart after the newest, each added on its own as calls come in.
		const oldest = Date.parse(stage.emulator.calls[0].created_at) + 15_000;
		let at = oldest - 15_000;
		const stamp = (ms: number) => ({ created_at: new Date(ms).toISOString() });
		const day = Array.from({ length: 150 }, () => {
			at += 15_000;
			return stage.emulator.addCalls(1, stamp(at))[0].id;
		});
		await workflow.poll();
		const night = await workflow.waitForExecutions(8); // 20 calls each
		expect(night.flatMap(emittedIds)).toEqual(day);

		// Started 10 s before the oldest of them, listed only now, where its time sorts.
		const [late] = stage.emulator.addCalls(1, stamp(oldest - 10_000), { listedLate: true });
		await workflow.poll();
		await workflow.poll();
		const all = await workflow.waitForExecutions(night.length + 1);
		expect(all.flatMap(emittedIds)).toEqual([...day, late.id]);
	});
});

(N8N_MAJOR >= 2 ? describe : describe.skip)("n8n's durable scheduler", () => {
	const DURABLE = {
		N8N_SCHEDULER_ENABLED: 'true',
		N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
		N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
		N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
		N8N_SCHEDULER_MATERIALIZATION_INTERVAL: '1',
		N8N_SCHEDULER_EXECUTOR_INTERVAL: '1',
	};
	let opened: Awaited<ReturnType<typeof openStage>>;
	beforeAll(async () => (opened = await openStage(DURABLE)), 600_000);
	afterAll(async () => await opened?.stage.close());
	// Each test's workflow alone: a published one would go on checking every minute beside the next.
	afterEach(async () => await opened?.stage.unpublishAll());

	const everyMinute = { item: [{ mode: 'everyMinute' }] };

	test('calls made between publishing and the first scheduled check come, once', async () => {
		const { stage, credentialId } = opened;
		const workflow = await stage.deploy(
			triggerWorkflow({ credentialId, parameters: { pollTimes: everyMinute } }),
		);
		const justNow = new Date().toISOString();
		const added = stage.emulator.addCalls(3, { created_at: justNow });
		const [execution] = await workflow.waitForExecutions(1, 150_000);
		expect(emittedIds(execution)).toEqual(oldestFirst(added));
		// The next scheduled checks deliver nothing again.
		await sleep(65_000);
		const all = await workflow.waitForExecutions(1);
		expect(all.filter((each) => emittedIds(each).length > 0)).toHaveLength(1);
	});

	test('n8n killed in the middle of a scheduled check: the next checks export every call, at most one execution twice', async () => {
		const { stage } = opened;
		const name = 'Killed mid-check';
		const folder = path.join(stage.sandbox.filesDir, 'killed');
		fs.mkdirSync(folder, { recursive: true });
		const credentialId = await stage.createCredential(name, DEMO_KEYS.full, 1200);
		// Calls Since: only this test's calls (the stage holds the earlier test's, without recordings).
		const start = Date.now();
		const callsSince = new Date(start - 1000).toISOString();
		const triggerOptions = { callsPerExecution: 20, waitForRecording: 0, callsSince };
		const export200 = { credentialId, credentialName: name, folder, triggerOptions };
		const workflow = await stage.deploy(
			exportToDiskWorkflow({ ...export200, pollTimes: everyMinute }),
		);
		const recorded = { status: 'completed', has_recording: true } as const;
		// Stamped with the real clock, a millisecond apart, as the bench's night (bench/nightly.ts).
		const all = Array.from({ length: 200 }, (_, index) => {
			const [call] = stage.emulator.addCalls(1, {
				...recorded,
				created_at: new Date(start + index).toISOString(),
			});
			return call.id;
		});
		const exported = async () => (await workflow.executions()).flatMap(emittedIds);

		let deadline = Date.now() + 150_000;
		while ((await workflow.executions()).length < 3 && Date.now() < deadline) await sleep(200);
		await stage.server.kill();
		expect((await exported()).length).toBeLessThan(all.length);

		// Restarted, n8n's scheduler runs the next checks (or repeats the one it lost).
		stage.server = await startN8nServer(stage.sandbox);
		deadline = Date.now() + 180_000;
		let ids = await exported();
		// Every call in a finished execution (one n8n marked crashed counts) and its file on disk.
		const done = () =>
			all.every((id) => ids.includes(id)) && fs.readdirSync(folder).length >= all.length;
		while (!done()) {
			if (Date.now() > deadline) throw new Error(`${new Set(ids).size} of 200 calls exported`);
			await sleep(1000);
			ids = await exported();
		}
		// Only the execution cut short by the kill comes again.
		expect(ids.length - new Set(ids).size).toBeLessThanOrEqual(20);
		expect(fs.readdirSync(folder)).toHaveLength(all.length);
	}, 420_000);
});
