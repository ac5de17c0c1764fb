/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run bench:recordings`: the trigger with Download Recording in a real n8n, polled by n8n's
 * own schedule (every 5 s), while recordings become ready some time after their calls. For each
 * answer the API may give meanwhile (404, 202, 200 with `status: processing` and no URL) it
 * counts what reached the workflow: calls, files, calls emitted twice, and failed polls (error
 * executions). Prints a Markdown table. Not part of `npm test`.
 *
 * Each run: 3 new calls whose recordings are ready DELAY_S later and 1 missed call (no
 * recording: 404 for good), watched for WATCH_S. The trigger's Wait for Recording is 1 minute.
 *
 * Environment:
 *   BENCH_PACKAGE_DIR=<dir>  measure another build of the package (before/after a change)
 *   LCA_N8N_VERSION=1.123.81 the 1.x line (default: the 2.x one)
 */
import { PENDING_RECORDING_ANSWERS } from '../devkit/emulator';
import { N8N_VERSION, readStoredExecutions } from '../devkit/n8n';
import type { StoredExecution } from '../devkit/n8n';
import { pollTimesAtSeconds, triggerWorkflow } from '../devkit/workflows';
import { logger, runBench } from './lib/cleanup';
import { startBenchEmulator, startBenchServer } from './lib/n8n';
import { sleep } from './lib/stats';
import { ourCredential } from './lib/workflows';

const DELAY_S = 20;
const WAIT_MINUTES = 1;
const WATCH_S = 90;
const POLL_EVERY_S = 5;

function triggerItems(execution: StoredExecution) {
	const task = execution.data?.resultData.runData['On New Call']?.[0];
	return task?.data?.main?.[0] ?? [];
}

runBench('bench:recordings', async () => {
	const { server, sandbox } = await startBenchServer('n8n', {}, logger('bench:recordings'));
	const options = { rateLimit: false as const, seedCalls: 10, recordingBytes: 5_000 };
	const bench = await startBenchEmulator(options);
	const { emulator } = bench;
	const credentialId = await server.createCredential(ourCredential('bench', bench, 0));
	const rows: string[] = [];
	for (const pendingAnswer of PENDING_RECORDING_ANSWERS) {
		emulator.setRecordingProcessing({ delayMs: DELAY_S * 1000, pendingAnswer });
		const seconds = Array.from({ length: 60 / POLL_EVERY_S }, (_, i) => i * POLL_EVERY_S);
		const workflowId = await server.deployWorkflow(
			triggerWorkflow({
				name: `Recordings ${pendingAnswer}`,
				credentialId,
				parameters: {
					pollTimes: pollTimesAtSeconds(...seconds),
					downloadRecording: true,
					options: { waitForRecording: WAIT_MINUTES },
				},
			}),
		);
		await sleep(2 * POLL_EVERY_S * 1000);
		const added = Date.now();
		const recorded = emulator.addCalls(3, { status: 'completed', has_recording: true });
		const [missed] = emulator.addCalls(1, { status: 'missed', has_recording: false });
		let missedAfterS: number | undefined;
		for (let waited = 0; waited < WATCH_S * 1000; waited += 1000) {
			await sleep(1000);
			if (missedAfterS !== undefined) continue;
			const executions = await readStoredExecutions(sandbox, workflowId);
			if (executions.some((e) => triggerItems(e).some((item) => item.json.id === missed.id)))
				missedAfterS = Math.round((Date.now() - added) / 1000);
		}
		await server.rest('POST', `/workflows/${workflowId}/deactivate`, {});
		const executions = await readStoredExecutions(sandbox, workflowId);
		const ours = new Set([...recorded, missed].map((call) => call.id));
		const emitted = executions
			.flatMap(triggerItems)
			.filter((item) => ours.has(String(item.json.id)));
		const unique = new Set(emitted.map((item) => String(item.json.id)));
		const counts = {
			answer: pendingAnswer,
			calls: unique.size,
			files: emitted.filter((item) => item.binary !== undefined).length,
			duplicates: emitted.length - unique.size,
			failedPolls: executions.filter((e) => e.status === 'error' || e.status === 'crashed').length,
			missedAfterS,
		};
		console.error(JSON.stringify(counts));
		const missedCell = missedAfterS === undefined ? 'not emitted' : `${missedAfterS} s`;
		rows.push(
			`| ${pendingAnswer} | ${counts.calls} | ${counts.files} | ${counts.duplicates} | ${counts.failedPolls} | ${missedCell} |`,
		);
	}
	const packageDir = process.env.BENCH_PACKAGE_DIR ?? 'this build';
	console.log(
		`\nn8n ${N8N_VERSION}, ${packageDir}: 3 calls whose recordings are ready ${DELAY_S} s after they appear + 1 missed call, polled every ${POLL_EVERY_S} s for ${WATCH_S} s, Wait for Recording ${WAIT_MINUTES} min\n`,
	);
	console.log(
		'| pending answer | calls (of 4) | files (of 3) | duplicates | failed polls | missed call emitted after |',
	);
	console.log('| - | - | - | - | - | - |');
	console.log(rows.join('\n'));
});
