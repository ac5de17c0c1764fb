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
import { packAndInstall, REPO_DIR, N8N_VERSION } from '../devkit/n8n';
import {
	createN8nSandbox,
	readStoredExecutions,
	startN8nServer,
	type StoredExecution,
} from '../devkit/n8n';
import { DEMO_KEYS, PENDING_RECORDING_ANSWERS, startEmulator } from '../devkit/emulator';
import { CREDENTIAL_TYPE, pollTimesAtSeconds, triggerWorkflow } from '../devkit/workflows';
import { runProcess } from '../devkit/n8n/process';

const DELAY_S = 20;
const WAIT_MINUTES = 1;
const WATCH_S = 90;
const POLL_EVERY_S = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Counts {
	answer: string;
	calls: number;
	files: number;
	duplicates: number;
	failedPolls: number;
	/** Seconds from adding the calls to the missed call's emission, if it came. */
	missedAfterS?: number;
}

function triggerItems(execution: StoredExecution) {
	const task = execution.data?.resultData.runData['On New Call']?.[0];
	return task?.data?.main?.[0] ?? [];
}

async function main(): Promise<void> {
	const packageDir = process.env.BENCH_PACKAGE_DIR ?? REPO_DIR;
	if (!process.env.BENCH_PACKAGE_DIR) {
		const build = await runProcess('npm', ['run', 'build'], { cwd: REPO_DIR, env: process.env });
		if (build.code !== 0) throw new Error(`npm run build failed:\n${build.stderr}`);
	}
	const sandbox = await createN8nSandbox();
	await packAndInstall(packageDir, sandbox.userFolder);
	const server = await startN8nServer(sandbox);
	const emulator = await startEmulator({ rateLimit: false, seedCalls: 10, recordingBytes: 5_000 });
	const results: Counts[] = [];
	try {
		const credentialId = await server.createCredential({
			id: 'bench',
			name: 'Lead & Call Access',
			type: CREDENTIAL_TYPE,
			data: { baseUrl: emulator.baseUrl, apiKey: DEMO_KEYS.full, requestsPerMinute: 0 },
		});
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
			const items = executions.flatMap(triggerItems);
			const ours = new Set([...recorded, missed].map((call) => call.id));
			const emitted = items.filter((item) => ours.has(String(item.json.id)));
			const unique = new Set(emitted.map((item) => String(item.json.id)));
			const counts: Counts = {
				answer: pendingAnswer,
				calls: unique.size,
				files: emitted.filter((item) => item.binary !== undefined).length,
				duplicates: emitted.length - unique.size,
				failedPolls: executions.filter((e) => e.status === 'error' || e.status === 'crashed')
					.length,
				missedAfterS,
			};
			console.error(JSON.stringify(counts));
			results.push(counts);
		}
	} finally {
		await server.stop();
		await emulator.stop();
		sandbox.cleanup();
	}
	console.log(
		`\nn8n ${N8N_VERSION}, ${packageDir === REPO_DIR ? 'this build' : packageDir}: 3 calls whose recordings are ready ${DELAY_S} s after they appear + 1 missed call, polled every ${POLL_EVERY_S} s for ${WATCH_S} s, Wait for Recording ${WAIT_MINUTES} min\n`,
	);
	console.log(
		'| pending answer | calls (of 4) | files (of 3) | duplicates | failed polls | missed call emitted after |',
	);
	console.log('| - | - | - | - | - | - |');
	for (const r of results) {
		const missed = r.missedAfterS === undefined ? 'not emitted' : `${r.missedAfterS} s`;
		console.log(
			`| ${r.answer} | ${r.calls} | ${r.files} | ${r.duplicates} | ${r.failedPolls} | ${missed} |`,
		);
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
