/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run bench:nightly`: the first nightly run of a recording export after a day of 2,000
 * calls with 512 KB recordings (1 GB), in a real n8n at its defaults, against the emulator at
 * 6,000 requests a minute (the credential says the same), so that the node and n8n are the
 * bottleneck. The export is checked once a day by n8n's own schedule, at the next minute.
 * Prints one Markdown row per shape: calls exported by that run, calls exported twice, failed
 * executions, peak memory growth of the n8n process(es), time from the check's first request
 * to the last file written, and the requests the API counted (the time they take at 60/min).
 *
 *   LCA_N8N_VERSION=1.123.81  the 1.x line (default 2.x); binary data at the line's default:
 *                             in memory on 1.x, on disk on 2.x, in the database in queue mode
 *   BENCH_NIGHT_MODE=queue    queue mode (Postgres, Redis, main + 2 workers; default single)
 *   BENCH_NIGHT_SHAPES=simplest,example  what to measure (default both): the trigger with
 *                             Download Recording → Write Files to Disk at its defaults, or
 *                             examples/export-recordings.json of the measured package
 *   BENCH_NIGHT_CALLS=2000    calls of the day
 *   BENCH_NIGHT_RATE=6000     the emulator's and the credential's requests per minute (60: the
 *                             real service's, to check the time computed from the requests)
 *   BENCH_NIGHT_SCHEDULER=durable  n8n's durable scheduler for polling triggers (2.36+; its four
 *                             settings on, its default 45 s poll timeout), Poll Times every
 *                             BENCH_NIGHT_EVERY_MINUTES (default 1) instead of once a night, the
 *                             calls stamped with the real clock
 *   BENCH_NIGHT_MINUTES=40    how long the night may take at most
 *   BENCH_PACKAGE_DIR=<dir>   measure another build of the package (before/after a change)
 */
import * as fs from 'fs';
import * as path from 'path';

import { EXAMPLE_FILES_DIR } from '../devkit/demo/examples';
import { N8N_MAJOR, N8N_VERSION, startN8nQueue } from '../devkit/n8n';
import type { N8nServer, WorkflowJson } from '../devkit/n8n';
import { dailyAtNextMinute, exportToDiskWorkflow } from '../devkit/nightlyExport';
import { logger, onCleanup, runBench } from './lib/cleanup';
import { sandboxWithPackage, startBenchEmulator, startBenchServer } from './lib/n8n';
import { findN8nPid, trackPeakRss } from './lib/proc';
import { sleep } from './lib/stats';
import { ourCredential } from './lib/workflows';

const CALLS = Number(process.env.BENCH_NIGHT_CALLS ?? 2000);
const RECORDING_BYTES = 512 * 1024;
const PER_MINUTE = Number(process.env.BENCH_NIGHT_RATE ?? 6000);
const QUEUE = process.env.BENCH_NIGHT_MODE === 'queue';
const SHAPES = (process.env.BENCH_NIGHT_SHAPES ?? 'simplest,example').split(',');
const PACKAGE = process.env.BENCH_PACKAGE_DIR ?? 'this build';
const DURABLE = process.env.BENCH_NIGHT_SCHEDULER === 'durable';
const NIGHT_MINUTES = Number(process.env.BENCH_NIGHT_MINUTES ?? 40);
/** Under the durable scheduler: minutes between checks (the export example checks every 2). */
const EVERY_MINUTES = Number(process.env.BENCH_NIGHT_EVERY_MINUTES ?? 1);
/** n8n's durable scheduler with polling triggers and their cursors (n8n 2.36+). */
const DURABLE_ENV = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
};
/**
 * With no file written for this long (and some written), the run is over. When the night needs
 * more than a minute of requests, the limiter lets each minute's requests through at once and
 * then holds the rest for up to a minute: that minute is added.
 */
const QUIET_MS = 45_000 + (CALLS > PER_MINUTE ? 60_000 : 0) + (EVERY_MINUTES - 1) * 60_000;

const log = logger('bench:nightly');

/** n8n, its files folder and the n8n processes doing the work: main, and the workers in queue mode. */
async function startStage(): Promise<{ server: N8nServer; filesDir: string; pids: number[] }> {
	// Each line's default binary data mode: in memory on 1.x; on disk on 2.x, in the database
	// in queue mode (1.x has no database mode).
	const binaryDataMode = N8N_MAJOR < 2 ? 'default' : QUEUE ? 'database' : 'filesystem';
	const env = { N8N_DEFAULT_BINARY_DATA_MODE: binaryDataMode, ...(DURABLE ? DURABLE_ENV : {}) };
	if (!QUEUE) {
		const { server, sandbox, pid } = await startBenchServer('n8n', { env }, log);
		return { server, filesDir: sandbox.filesDir, pids: [pid] };
	}
	const sandbox = await sandboxWithPackage('queue', { env }, log);
	const queue = await startN8nQueue(sandbox, { workers: 2 });
	onCleanup('queue', () => queue.stop());
	const workers = queue.workers.map((worker) => worker.service.pid!);
	return {
		server: queue.main,
		filesDir: sandbox.filesDir,
		pids: [findN8nPid(sandbox), ...workers],
	};
}

function simplest(credentialId: string, folder: string): WorkflowJson {
	const credentialName = `Bench ${credentialId}`;
	return exportToDiskWorkflow({ credentialId, credentialName, folder, pollTimes: nextMinute() });
}

/**
 * The night comes at the next minute at least 20 s away (n8n's own schedule runs it); under the
 * durable scheduler, checks every EVERY_MINUTES, each delivering what fits in its time.
 */
const nextMinute = () =>
	DURABLE
		? { item: [{ mode: 'everyX', value: EVERY_MINUTES, unit: 'minutes' }] }
		: dailyAtNextMinute(20_000);

/** The measured package's own example, as a user imports it, with the night moved to the next minute. */
function example(credentialId: string, folder: string): WorkflowJson {
	const dir = process.env.BENCH_PACKAGE_DIR ?? path.join(__dirname, '..');
	const text = fs.readFileSync(path.join(dir, 'examples', 'export-recordings.json'), 'utf8');
	const workflow = JSON.parse(text.split(EXAMPLE_FILES_DIR).join(folder)) as WorkflowJson;
	const trigger = workflow.nodes.find((node) => node.type.endsWith('leadCallAccessTrigger'))!;
	trigger.parameters.pollTimes = nextMinute();
	trigger.credentials = { leadCallAccessApi: { id: credentialId, name: `Bench ${credentialId}` } };
	return { ...workflow, settings: { ...workflow.settings, timezone: 'UTC' } };
}

/** The recordings: the example also writes each call's details, a CSV of missing ones, a summary. */
const recordingsIn = (folder: string) =>
	fs.readdirSync(folder).filter((file) => !/\.(json|csv|txt)$/.test(file)).length;

/** The night of one shape, as a row of the table. */
async function measure(stage: Awaited<ReturnType<typeof startStage>>, shape: string) {
	const bench = await startBenchEmulator({
		rateLimit: { limit: PER_MINUTE, windowMs: 60_000 },
		recordingBytes: RECORDING_BYTES,
		seedCalls: 3,
		recordRequests: true,
	});
	const credential = ourCredential(shape, bench, PER_MINUTE);
	await stage.server.createCredential(credential);
	const folder = path.join(stage.filesDir, shape);
	// The example writes into `recordings/`, which its set-up note asks the user to create once.
	const written = shape === 'example' ? path.join(folder, 'recordings') : folder;
	fs.mkdirSync(written, { recursive: true });
	const workflow =
		shape === 'example' ? example(credential.id, folder) : simplest(credential.id, folder);
	const workflowId = await stage.server.deployWorkflow(workflow);
	await stage.server.publicationStatus(workflowId);
	const recorded = { status: 'completed', has_recording: true } as const;
	if (!DURABLE) bench.emulator.addCalls(CALLS, recorded);
	// Stamped with the real clock: the first check under the durable scheduler starts from the
	// check before it (the emulator's own calls are stamped in 2025).
	const now = Date.now() - CALLS;
	for (let index = 0; DURABLE && index < CALLS; index++)
		bench.emulator.addCalls(1, { ...recorded, created_at: new Date(now + index).toISOString() });
	log(`${shape}: ${CALLS} calls added; waiting for the night`);

	await sleep(5_000); // activation settled
	const trackers = stage.pids.map((pid) => trackPeakRss(pid, 200));
	const mark = bench.emulator.requests.length;
	let lastCount = 0;
	let lastChange = Date.now();
	const deadline = Date.now() + NIGHT_MINUTES * 60_000;
	while (Date.now() < deadline) {
		await sleep(1_000);
		const count = recordingsIn(written);
		if (count !== lastCount) [lastCount, lastChange] = [count, Date.now()];
		if (count >= CALLS && Date.now() - lastChange > 5_000) break;
		if (count > 0 && Date.now() - lastChange > QUIET_MS) break;
	}
	// The kernel's high-water mark since the reset, cross-checked by sampling; growth over the
	// RSS just before the night (0 when it never went above it).
	const peaks = trackers.map((tracker) => Math.max(0, tracker.stop() - tracker.baselineMb));
	const requests = bench.emulator.requests.slice(mark);
	const first = requests[0]?.at ?? Date.now();
	const lastFile = Math.max(
		...fs.readdirSync(written).map((file) => fs.statSync(path.join(written, file)).mtimeMs),
	);
	const executions = await stage.server.rest<
		{ results?: Array<{ status: string }> } | Array<{ status: string }>
	>('GET', `/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}&limit=1000`);
	const list = Array.isArray(executions) ? executions : (executions.results ?? []);
	const failed = list.filter((e) => !['success', 'running', 'new'].includes(e.status)).length;
	const exported = recordingsIn(written);
	// Recordings downloaded more than once: a call exported twice downloads its file twice.
	const downloads = bench.emulator.fileRequests.filter((r) => r.status === 200).map((r) => r.path);
	const twice = downloads.length - new Set(downloads).size;
	const [main, worker] = [peaks[0], Math.max(...peaks.slice(1))].map((mb) => mb.toFixed(0));
	const memory = QUEUE ? `${main} main, ${worker} worker` : main;
	const apiRequests = requests.filter((r) => r.origin === 'api').length;
	const atRealRate = (apiRequests / 60).toFixed(1);
	await stage.server.rest('POST', `/workflows/${workflowId}/deactivate`, {});
	await bench.stop();
	return `| ${N8N_VERSION}${QUEUE ? ' queue' : ''}${DURABLE ? ' durable' : ''} | ${PACKAGE} | ${CALLS} calls, ${PER_MINUTE}/min: ${shape} | ${exported} | ${twice} | ${failed} | ${memory} | ${((lastFile - first) / 1000).toFixed(0)} | ${apiRequests} (${atRealRate} min at 60/min) |`;
}

runBench('bench:nightly', async () => {
	const stage = await startStage();
	console.log(
		'| n8n | package | shape | exported by the first night | twice | failed executions | peak memory growth MB | s | API requests |',
	);
	console.log('| - | - | - | - | - | - | - | - | - |');
	for (const shape of SHAPES) console.log(await measure(stage, shape));
});
