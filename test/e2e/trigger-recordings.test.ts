/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The trigger's Download Recording inside a real n8n, with the package installed from its
 * tarball, against the API emulator: binary data a next node writes, recordings that are not
 * ready yet held across polls (the position in n8n's database), and no key in what it stores.
 */
import * as fs from 'fs';
import * as path from 'path';
import { sleep } from 'n8n-workflow';

import { readDatabaseText } from '../../devkit/n8n';
import { DEMO_KEYS, PENDING_RECORDING_ANSWERS, recordingBytes } from '../../devkit/emulator';
import { emittedIds, oldestFirst, outputItems, triggerWorkflow } from './trigger-helpers';
import { useTriggerStage } from './trigger-stage';

jest.setTimeout(120_000);

const RECORDING_BYTES = 20_000;
const trigger = useTriggerStage({
	rateLimit: false,
	seedCalls: 5,
	recordingBytes: RECORDING_BYTES,
});

const sleepUntil = async (at: number) => await sleep(Math.max(0, at - Date.now()));
const deploy = (parameters: Record<string, unknown> = {}) =>
	trigger.stage().deploy(triggerWorkflow({ credentialId: trigger.credentialId(), parameters }));

describe('Download Recording', () => {
	test('attaches each recording as binary data that the next node can write', async () => {
		const { emulator, sandbox } = trigger.stage();
		const workflow = await trigger.stage().deploy(
			triggerWorkflow({
				credentialId: trigger.credentialId(),
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
		afterEach(() => trigger.stage().emulator.setRecordingProcessing({ delayMs: 0 }));

		test('late recordings come with their file, the missed call once without one after the wait; no poll fails', async () => {
			const { emulator } = trigger.stage();
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

test('the API key never appears in what n8n stored or logged, binary executions included', async () => {
	const database = await readDatabaseText(trigger.stage().sandbox);
	expect(database).toContain(trigger.stage().emulator.calls[0].id); // it holds the executions
	expect(database).not.toContain(DEMO_KEYS.full);
	expect(trigger.stage().serverLog()).not.toContain(DEMO_KEYS.full);
});
