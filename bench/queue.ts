/**
 * `npm run bench:queue`: Import Lead in real n8n queue mode (devkit/n8n/queue: Postgres, Redis,
 * `n8n start` and 2 or 3 `n8n worker` processes sharing one user folder), driven through the
 * production webhook against the API emulator. For each worker count: every worker busy (one
 * execution per worker, the leads split between them) and one worker busy (one execution with
 * all the leads). Prints a Markdown table and rewrites the "Queue mode" section of BENCHMARKS.md;
 * the log shows each row's accepted/refused requests per tenth of a window. Settings, targets and
 * tables: bench/queueRows.ts. About 10 minutes on 2 CPUs. Environment (default first):
 *
 *   BENCH_QUEUE_LIMITS=10,60   server limits, requests per window: 10 is the API's 60/min with
 *                              time shrunk 6 times; 60 keeps the real minute's 60 requests per
 *                              window, so the budget's steps are as fine as against the real API
 *   BENCH_QUEUE_WORKERS=2,3    worker counts;  BENCH_QUEUE_BUSY=all,one  which rows
 *   BENCH_QUEUE_RUNS=1         runs of each row on the same queue, each on a fresh key
 *   BENCH_QUEUE_HEADERS=none,ietf  rows without rate-limit headers and with them (any
 *                              RateLimitHeaderStyle of the emulator)
 *   BENCH_QUEUE_ALGORITHM=sliding-log  the server's limiter (token-bucket: burst = limit)
 *   BENCH_QUEUE_RESET_ROUNDING=up  how the server rounds the headers' Reset to whole seconds
 *   BENCH_QUEUE_WINDOW_S=10    the server's window (60: the API's real minute)
 *   BENCH_QUEUE_WINDOWS=6      windows' worth of leads per row (5 windows at the fastest, and
 *                              splits between 2 or 3; 4 at 60 s windows, 20 for long runs)
 *   BENCH_QUEUE_WRITE=0        print the tables only, leaving BENCHMARKS.md alone
 *   BENCH_PACKAGE_DIR=<dir>    install another build of the package (before/after comparisons)
 *   BENCH_QUEUE_LOG=<dir>      each row's requests to <dir>/<row>.json: ms after the first,
 *                              status, the execution that sent it, what the answer stated
 *   BENCH_QUEUE_SAME_KEY=1     "one busy" on the key of the "all busy" row before it, a window
 *                              later (each worker starting from what it learnt sharing the key)
 *   BENCH_QUEUE_AGAIN=1        with SAME_KEY: a second "all busy" three windows after the first
 */
import type { RateLimitHeaderStyle } from '../devkit/emulator';
import { startN8nQueue, type N8nQueue } from '../devkit/n8n';
import { leads } from '../devkit/workflows';
import { cleanupAll, onCleanup, runBench } from './lib/cleanup';
import { deploy, sandboxWithPackage, trigger, withEmulator } from './lib/n8n';
import type { BenchEmulator, BenchServer } from './lib/n8n';
import { findN8nPid } from './lib/proc';
import { publishSection, renderSection } from './lib/report';
import { fixed, sleep } from './lib/stats';
import { ourImportChain } from './lib/workflows';
import { maxInAnyWindow } from './rate';
import {
	QUEUE,
	log,
	queueNotes,
	queueSection,
	ratio,
	timeline,
	writeRequestLog,
} from './queueRows';

const WINDOW_MS = QUEUE.windowMs;

interface Row {
	queue: N8nQueue;
	server: BenchServer;
	limit: number;
	headers: RateLimitHeaderStyle | undefined;
	/** The row's emulator, with its key: each worker keeps its pacing state per key. */
	bench: BenchEmulator;
}

let rowCounter = 0;

export type QueueRow = Awaited<ReturnType<typeof measureRow>>;

async function measureRow(row: Row, busy: 'all' | 'one') {
	const { queue, server, limit, bench } = row;
	const leadCount = QUEUE.windowsOfLeads * limit;
	const workers = queue.workers.length;
	const executions = busy === 'all' ? workers : 1;
	const id = `queue-${++rowCounter}`;
	// The hidden Rate Window Seconds shortens the credential's minute like the server's.
	const budget = { requestsPerMinute: (limit * 60_000) / WINDOW_MS, windowMs: WINDOW_MS };
	const deployed = await deploy(server, ourImportChain(id, bench, budget));
	const before = new Set(queue.workers.flatMap((worker) => worker.executionIds()));
	bench.emulator.reset();

	const perExecution = leadCount / executions;
	const started = performance.now();
	const results = await Promise.all(
		Array.from({ length: executions }, (_, index) =>
			trigger(server, deployed, { items: leads(perExecution, index * perExecution) }),
		),
	);
	const wallMs = performance.now() - started;
	const failed = results.find((result) => result.status !== 200);
	if (failed) {
		const error = await queue.lastError(deployed.workflowId);
		log(`  an execution failed (HTTP ${failed.status}): ${error ?? 'no stored error'}`);
	}

	const requests = bench.emulator.requests.filter((request) => request.path === '/v1/leads');
	const limitedAt = requests.filter((r) => r.status === 429).map((r) => r.at);
	if (QUEUE.requestLogDir) writeRequestLog(QUEUE.requestLogDir, id, requests, perExecution);
	const workersUsed = queue.workers.filter((worker) =>
		worker.executionIds().some((executionId) => !before.has(executionId)),
	).length;
	return {
		workers,
		busy,
		executions,
		/** Workers that ran at least one of the row's executions. */
		workersUsed,
		/** The server's requests per window (QUEUE.windowMs). */
		limit,
		headers: row.headers,
		leads: leadCount,
		requests: requests.length,
		rateLimited: limitedAt.length,
		max429PerWindow: maxInAnyWindow(limitedAt, WINDOW_MS),
		lost: leadCount - bench.emulator.leads.size,
		executionsFailed: results.filter((result) => result.status !== 200).length,
		wallMs,
		/**
		 * When the server accepts the N-th request at the earliest: a client that sends each
		 * window's `limit` requests at once, from a fresh key, gets it in after ⌊(N − 1) ÷ limit⌋
		 * windows (sliding-log server).
		 */
		fastestMs: Math.floor((leadCount - 1) / limit) * WINDOW_MS,
		/** Accepted/refused requests per tenth of a window, from the first request ("60/2 0/0 …"). */
		timeline: timeline(requests),
	};
}

/**
 * The rows of one server limit and header family, `BENCH_QUEUE_RUNS` times: each on a fresh key,
 * or with BENCH_QUEUE_SAME_KEY "all busy" (again three windows later, with BENCH_QUEUE_AGAIN),
 * then, a window later, "one busy" on the same key.
 */
async function measureRows(stage: Omit<Row, 'bench'>): Promise<QueueRow[]> {
	const rows: QueueRow[] = [];
	const { algorithm, resetRounding } = QUEUE;
	const { limit, headers } = stage;
	const rateLimit = { limit, windowMs: WINDOW_MS, algorithm, headers, resetRounding };
	const onKey = <T>(work: (row: Row) => Promise<T>) =>
		withEmulator({ rateLimit, recordRequests: true }, (bench) => work({ ...stage, bench }));
	for (let run = 0; run < QUEUE.runs; run++) {
		if (!QUEUE.sameKey) {
			for (const busy of QUEUE.busy) rows.push(await onKey((row) => measureRow(row, busy)));
			continue;
		}
		await onKey(async (row) => {
			rows.push(await measureRow(row, 'all'));
			if (QUEUE.again) {
				await sleep(3 * WINDOW_MS);
				rows.push(await measureRow(row, 'all'));
			}
			// A window later every server has refilled: "fastest" is the same as from a fresh key.
			await sleep(WINDOW_MS);
			if (QUEUE.busy.includes('one')) rows.push(await measureRow(row, 'one'));
		});
	}
	return rows;
}

async function main(): Promise<void> {
	const rows: QueueRow[] = [];
	for (const workers of QUEUE.workerCounts) {
		log(`starting queue mode with ${workers} workers`);
		const sandbox = await sandboxWithPackage('queue', {}, log);
		// Concurrency 1: executions started together go to different workers ("all busy").
		const queue = await startN8nQueue(sandbox, { workers, concurrency: 1 });
		onCleanup('queue', () => queue.stop());
		const pid = findN8nPid(sandbox);
		const server = {
			name: 'main',
			sandbox,
			server: queue.main,
			pid,
			credentials: new Set<string>(),
		};
		for (const limit of QUEUE.limits) {
			for (const headers of QUEUE.headerStyles) {
				log(
					`${workers} workers, busy ${QUEUE.busy.join(' then ')}${QUEUE.sameKey ? ' on the same key' : ''}: ${QUEUE.windowsOfLeads * limit} leads at ${limit} per window, headers ${headers ?? 'none'}`,
				);
				const measured = await measureRows({ queue, server, limit, headers });
				for (const row of measured) {
					log(
						`  ${row.busy} busy: ${row.requests} requests, ${row.rateLimited} × 429, lost ${row.lost}, ${fixed(row.wallMs / 1000, 1)} s, fastest ÷ time ${fixed(ratio(row), 3)}; per ${WINDOW_MS / 10_000} s: ${row.timeline}`,
					);
				}
				rows.push(...measured);
			}
		}
		await cleanupAll();
	}
	const markdown = QUEUE.limits
		.map((limit, index) => {
			const last = index === QUEUE.limits.length - 1;
			const ofLimit = rows.filter((row) => row.limit === limit);
			return renderSection(queueSection(ofLimit, last ? queueNotes(rows) : []));
		})
		.join('\n\n');
	const source = { script: 'bench:queue', path: 'bench/queue.ts' };
	publishSection('Queue mode', source, markdown, QUEUE.write);
}

runBench('bench:queue', main);
