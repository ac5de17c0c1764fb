/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * A nightly recording export in a real n8n: the trigger with Download Recording and Calls per
 * Execution into Write Files to Disk, n8n killed (SIGKILL) in the middle of an export: the next
 * check repeats at most one execution's calls. What a check delivers (a day larger than any
 * bound, recordings still processing) is the engine suite's (test/engine/triggerNightly.test.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import { sleep } from 'n8n-workflow';

import { startN8nServer, type StoredExecution } from '../../devkit/n8n';
import { DEMO_KEYS } from '../../devkit/emulator';
import { exportToDiskWorkflow } from '../../devkit/nightlyExport';
import { emittedIds, TriggerStage } from './trigger-helpers';

jest.setTimeout(300_000);

const PER_EXECUTION = 20;

let stage: TriggerStage;
beforeAll(async () => {
	stage = await TriggerStage.open({ rateLimit: false, seedCalls: 3, recordingBytes: 4_000 });
}, 600_000);
afterEach(async () => await stage?.unpublishAll());
afterAll(async () => await stage?.close());

const exported = (executions: StoredExecution[]) => executions.flatMap(emittedIds);

/**
 * A nightly export into its own folder, its night far off (checks are driven by the tests), and a
 * day of `calls` recorded calls; the credential allows `perMinute` requests, to pace the export.
 */
async function exportNight(name: string, perMinute: number, calls: number) {
	const folder = path.join(stage.sandbox.filesDir, name);
	fs.mkdirSync(folder, { recursive: true });
	const credentialId = await stage.createCredential(name, DEMO_KEYS.full, perMinute);
	const far = {
		item: [{ mode: 'everyDay', hour: (new Date().getUTCHours() + 12) % 24, minute: 0 }],
	};
	const workflow = await stage.deploy(
		exportToDiskWorkflow({
			credentialId,
			credentialName: name,
			folder,
			pollTimes: far,
			triggerOptions: { callsPerExecution: PER_EXECUTION, waitForRecording: 0.25 },
		}),
	);
	const recorded = { status: 'completed', has_recording: true } as const;
	const all = stage.emulator.addCalls(calls, recorded).map((call) => call.id);
	return { folder, workflow, all };
}

test('n8n killed in the middle of an export: the next check exports the rest, at most one execution twice', async () => {
	// 20 requests a second: the export of 200 calls takes about 20 s, time to kill n8n in it.
	const { folder, workflow, all } = await exportNight('killed', 1200, 200);

	// The check, as publishing runs one; the call returns only once the check is over, or never.
	void stage.server.republish(workflow.id).catch(() => undefined);
	let deadline = Date.now() + 60_000;
	while ((await workflow.executions()).length < 3 && Date.now() < deadline) await sleep(200);
	await stage.server.kill();
	const beforeKill = exported(await workflow.executions());
	expect(beforeKill.length).toBeGreaterThanOrEqual(3 * PER_EXECUTION);
	expect(beforeKill.length).toBeLessThan(all.length);

	// At start-up n8n activates the workflow again, which runs the next check.
	stage.server = await startN8nServer(stage.sandbox);
	deadline = Date.now() + 120_000;
	let ids = exported(await workflow.executions());
	while (!all.every((id) => ids.includes(id))) {
		if (Date.now() > deadline) throw new Error(`${new Set(ids).size} of 200 calls exported`);
		await sleep(1000);
		ids = exported(await workflow.executions());
	}
	expect([...new Set(ids)].sort()).toEqual(all.sort());
	const twice = ids.length - new Set(ids).size;
	expect(twice).toBeLessThanOrEqual(PER_EXECUTION);
	expect(fs.readdirSync(folder)).toHaveLength(all.length);
});

test('the disk fails mid-night and is back before the next check: every recording is archived, one file each, no retry by hand', async () => {
	// 10 requests a second: the night of 120 calls takes about 12 s, time to fail the disk in it.
	const { folder, workflow, all } = await exportNight('failing', 600, 120);

	// Once 20 files are written, the folder becomes a file: every write fails, as on a full disk.
	const away = `${folder}.away`;
	const check = stage.server.republish(workflow.id);
	while (fs.readdirSync(folder).length < 20) await sleep(50);
	fs.renameSync(folder, away);
	fs.writeFileSync(folder, 'not a folder');
	await check;
	const night = await workflow.executions();
	expect(night.some((execution) => execution.status === 'error')).toBe(true);

	// The disk is back; the next check delivers the failed executions' calls again.
	fs.rmSync(folder);
	fs.renameSync(away, folder);
	await workflow.poll();
	const deadline = Date.now() + 60_000;
	while (fs.readdirSync(folder).length < all.length && Date.now() < deadline) await sleep(500);
	expect(fs.readdirSync(folder).sort()).toEqual(all.map((id) => `${id}.mp3`).sort());
	// Only the calls of the failed executions came twice.
	const executions = await workflow.executions();
	const failedCalls = executions
		.filter((execution) => execution.status === 'error')
		.flatMap(emittedIds);
	const ids = exported(executions);
	expect(ids.length - new Set(ids).size).toBe(failedCalls.length);
});
