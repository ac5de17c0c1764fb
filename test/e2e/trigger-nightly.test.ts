/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * A nightly recording export in a real n8n: the trigger with Download Recording, checked once a
 * day by n8n's own schedule, into Write Files to Disk. The check after a day larger than any
 * bound the trigger had exports every call once, recordings still being processed included;
 * n8n killed in the middle of an export repeats at most one execution's calls at its next check.
 */
import * as fs from 'fs';
import * as path from 'path';
import { sleep } from 'n8n-workflow';

import { startN8nServer, type StoredExecution } from '../../devkit/n8n';
import { DEMO_KEYS, type CallRecord } from '../../devkit/emulator';
import { CREDENTIAL_TYPE } from '../../devkit/workflows';
import { dailyAtNextMinute, exportToDiskWorkflow } from '../../devkit/nightlyExport';
import { emittedIds, TriggerStage } from './trigger-helpers';

jest.setTimeout(300_000);

const RECORDING_BYTES = 4_000;
const PER_EXECUTION = 20;

let stage: TriggerStage;
beforeAll(async () => {
	stage = await TriggerStage.open({
		rateLimit: false,
		seedCalls: 3,
		recordingBytes: RECORDING_BYTES,
	});
}, 600_000);
afterEach(async () => await stage?.unpublishAll());
afterAll(async () => await stage?.close());

/** A credential whose Requests per Minute paces the export (0: as fast as the API answers). */
async function credential(name: string, requestsPerMinute: number) {
	return await stage.server.createCredential({
		id: name,
		name,
		type: CREDENTIAL_TYPE,
		data: { baseUrl: stage.emulator.baseUrl, apiKey: DEMO_KEYS.full, requestsPerMinute },
	});
}

/** The simplest export (devkit/nightlyExport.ts), Calls per Execution and a short Wait for Recording. */
function exportWorkflow(credentialId: string, name: string, pollTimes: unknown, folder: string) {
	fs.mkdirSync(folder, { recursive: true });
	const triggerOptions = { callsPerExecution: PER_EXECUTION, waitForRecording: 0.25 };
	return exportToDiskWorkflow({
		credentialId,
		credentialName: name,
		folder,
		pollTimes,
		triggerOptions,
	});
}

const recorded: Partial<CallRecord> = { status: 'completed', has_recording: true };
const idsOf = (calls: CallRecord[]) => calls.map((call) => call.id).sort();
const exported = (executions: StoredExecution[]) => executions.flatMap(emittedIds);

/** Waits until the executions' calls cover `ids`; returns the executions with calls. */
async function exportedAll(
	executions: () => Promise<StoredExecution[]>,
	ids: string[],
	timeoutMs: number,
): Promise<StoredExecution[]> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const done = await executions();
		const seen = new Set(exported(done));
		if (ids.every((id) => seen.has(id))) return done;
		if (Date.now() > deadline) throw new Error(`${seen.size} of ${ids.length} calls exported`);
		await sleep(1000);
	}
}

test('the nightly check after a day of 600 calls exports each once, late recordings included', async () => {
	const folder = path.join(stage.sandbox.filesDir, 'nightly');
	const credentialId = await credential('nightly', 0);
	const workflow = await stage.deploy(
		exportWorkflow(credentialId, 'nightly', dailyAtNextMinute(), folder),
	);
	const day = stage.emulator.addCalls(595, recorded);
	// Still being processed when the night's check starts: they come within Wait for Recording.
	stage.emulator.setRecordingProcessing({ delayMs: 5_000, pendingAnswer: '202' });
	const late = stage.emulator.addCalls(5, recorded);
	stage.emulator.setRecordingProcessing({ delayMs: 0 });
	const all = idsOf([...day, ...late]);

	const executions = await exportedAll(() => workflow.executions(), all, 200_000);
	await sleep(2_000);
	const final = await workflow.executions();
	expect(final).toHaveLength(executions.length);
	expect(exported(final).sort()).toEqual(all);
	expect(final.every((execution) => execution.status === 'success')).toBe(true);
	expect(final.every((execution) => emittedIds(execution).length <= PER_EXECUTION)).toBe(true);
	expect(fs.readdirSync(folder).sort()).toEqual(all.map((id) => `${id}.mp3`));
	expect((await workflow.position())?.heldCalls).toBeUndefined();

	// The next check finds nothing new.
	await workflow.poll();
	await sleep(1_000);
	expect(await workflow.executions()).toHaveLength(final.length);
});

test('n8n killed in the middle of an export: the next check exports the rest, at most one execution twice', async () => {
	const folder = path.join(stage.sandbox.filesDir, 'killed');
	// 20 requests a second: the export of 200 calls takes about 20 s, time to kill n8n in it.
	const credentialId = await credential('killed', 1200);
	const far = {
		item: [{ mode: 'everyDay', hour: (new Date().getUTCHours() + 12) % 24, minute: 0 }],
	};
	const workflow = await stage.deploy(exportWorkflow(credentialId, 'killed', far, folder));
	const all = idsOf(stage.emulator.addCalls(200, recorded));

	// The check, as publishing runs one; the call returns only once the check is over, or never.
	void stage.server.republish(workflow.id).catch(() => undefined);
	const deadline = Date.now() + 60_000;
	while ((await workflow.executions()).length < 3 && Date.now() < deadline) await sleep(200);
	await stage.server.kill();
	const beforeKill = exported(await workflow.executions());
	expect(beforeKill.length).toBeGreaterThanOrEqual(3 * PER_EXECUTION);
	expect(beforeKill.length).toBeLessThan(all.length);

	// At start-up n8n activates the workflow again, which runs the next check.
	stage.server = await startN8nServer(stage.sandbox);
	const executions = await exportedAll(() => workflow.executions(), all, 120_000);
	const ids = exported(executions);
	expect([...new Set(ids)].sort()).toEqual(all);
	const twice = ids.length - new Set(ids).size;
	expect(twice).toBeLessThanOrEqual(PER_EXECUTION);
	expect(fs.readdirSync(folder)).toHaveLength(all.length);
});
