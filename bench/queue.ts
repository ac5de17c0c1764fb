/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run bench:queue`: Import Lead in real n8n queue mode (devkit/n8n/queue: Postgres, Redis,
 * `n8n start` and 2 or 3 `n8n worker` processes sharing one user folder), driven through the
 * production webhook against the API emulator. For each worker count: every worker busy (one
 * execution per worker, the leads split between them) and one worker busy (one execution with
 * all the leads). Prints a Markdown table and rewrites the "Queue mode" section of BENCHMARKS.md.
 * About 10 minutes on 2 CPUs.
 *
 *   BENCH_QUEUE_LIMITS=10,60 server limits to measure, requests per 10 s window (default 10,60):
 *                           10 is the API's 60/min with time shrunk 6 times; 60 keeps the real
 *                           minute's 60 requests per window, so the budget's steps are as fine
 *                           as they are against the real API (its share of 3 workers is 20, not 3)
 *   BENCH_QUEUE_WORKERS=2   worker counts to measure (default 2,3)
 *   BENCH_QUEUE_HEADERS=none,ietf  whether the server states the key's budget in rate-limit
 *                           headers (default none,ietf: rows without and with them; any
 *                           RateLimitHeaderStyle of the emulator)
 *   BENCH_QUEUE_ALGORITHM=token-bucket  the server's limiter (default sliding-log; any
 *                           RateLimitAlgorithm of the emulator, a token bucket with burst = limit)
 *   BENCH_QUEUE_RESET_ROUNDING=down  how the server rounds the headers' Reset to whole
 *                           seconds (default up; any ResetRounding of the emulator)
 *   BENCH_QUEUE_WINDOW_S=60 the server's window in seconds (default 10; 60 is the API's real minute)
 *   BENCH_QUEUE_WINDOWS=4   windows' worth of leads per row (default 6; 4 at 60 s windows, 20 for
 *                           long runs at 10 s)
 *   BENCH_QUEUE_WRITE=0     print the tables only, leaving BENCHMARKS.md alone
 *   BENCH_PACKAGE_DIR=<dir> install another build of the package (before/after comparisons)
 *   BENCH_QUEUE_LOG=<dir>   write each row's requests to <dir>/<row>.json: ms after the first,
 *                           status, which execution sent it and what the answer stated of the
 *                           key's budget (to see where 429s and unused places fall)
 *   BENCH_QUEUE_SAME_KEY=1  the "one busy" row uses the key of the "all busy" row before it, one
 *                           window later (each worker's budget then starts from what it learnt
 *                           sharing the key), instead of a fresh key
 *   BENCH_QUEUE_AGAIN=1     with BENCH_QUEUE_SAME_KEY=1: a second "all busy" row on the same key
 *                           three windows after the first (a scheduled run coming round again)
 */

import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';

import { buildAndInstall } from '../devkit/demo/build';
import type {
	RateLimitAlgorithm,
	RateLimitHeaderStyle,
	RecordedRequest,
	ResetRounding,
} from '../devkit/emulator';
import {
	createN8nSandbox,
	N8N_VERSION,
	packAndInstall,
	startN8nQueue,
	type N8nQueue,
} from '../devkit/n8n';
import { cleanupAll, onCleanup, runBench } from './lib/cleanup';
import { startBenchEmulator, type BenchEmulator } from './lib/emulator';
import { deploy, trigger, type BenchServer } from './lib/n8n';
import { findN8nPid } from './lib/proc';
import { publishSection, renderSection, type Section } from './lib/report';
import { fixed } from './lib/stats';
import { leads } from '../devkit/workflows';
import { ourImportChain } from './lib/workflows';
import { maxInAnyWindow } from './rateMetrics';
import { LIMIT } from './rateScenarios';

/** The server's window (default 10 s, LIMIT's; 60 is the API's real minute: about 6 min a row). */
const WINDOW_MS = Number(process.env.BENCH_QUEUE_WINDOW_S ?? LIMIT.windowMs / 1000) * 1000;
const LIMITS = (process.env.BENCH_QUEUE_LIMITS ?? '10,60').split(',').map(Number);
/**
 * Six windows' worth of leads per row: 5 windows at the fastest, and splits between 2 or 3
 * (`BENCH_QUEUE_WINDOWS=4` for 60 s windows: the webhook's answer must come within 5 minutes).
 */
const WINDOWS_OF_LEADS = Number(process.env.BENCH_QUEUE_WINDOWS ?? 6);
const ALGORITHM = (process.env.BENCH_QUEUE_ALGORITHM ?? 'sliding-log') as RateLimitAlgorithm;
const WORKER_COUNTS = (process.env.BENCH_QUEUE_WORKERS ?? '2,3').split(',').map(Number);
const SAME_KEY = process.env.BENCH_QUEUE_SAME_KEY === '1';
const AGAIN = process.env.BENCH_QUEUE_AGAIN === '1';
const RESET_ROUNDING = process.env.BENCH_QUEUE_RESET_ROUNDING as ResetRounding | undefined;
const HEADER_STYLES = (process.env.BENCH_QUEUE_HEADERS ?? 'none,ietf')
	.split(',')
	.map((style) => (style === 'none' ? undefined : (style as RateLimitHeaderStyle)));
/**
 * Targets: time ÷ fastest ≥ 0.9 (as fastest ÷ time), 0 lost, and 429s ≤ 5% of requests; with
 * rate-limit headers ≤ 2%, none with one worker busy (issue 20).
 */
const MIN_RATIO = 0.9;
const MAX_429_SHARE = 0.05;
const MAX_429_SHARE_WITH_HEADERS = 0.02;

interface QueueRow {
	workers: number;
	busy: 'all' | 'one';
	executions: number;
	/** Workers that ran at least one of the row's executions. */
	workersUsed: number;
	/** The server's requests per window (WINDOW_MS). */
	limit: number;
	/** The rate-limit headers the server sends (none: undefined). */
	headers?: RateLimitHeaderStyle;
	leads: number;
	requests: number;
	rateLimited: number;
	max429PerWindow: number;
	lost: number;
	executionsFailed: number;
	wallMs: number;
	/**
	 * When the server accepts the N-th request at the earliest: a client that sends each
	 * window's `limit` requests at once, from a fresh key, gets it in after ⌊(N − 1) ÷ limit⌋
	 * windows (sliding-log server).
	 */
	fastestMs: number;
}

function log(message: string): void {
	console.error(`[bench:queue ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

async function startQueue(workers: number): Promise<{ queue: N8nQueue; server: BenchServer }> {
	const sandbox = await createN8nSandbox();
	onCleanup('queue sandbox', () => sandbox.cleanup());
	if (process.env.BENCH_PACKAGE_DIR)
		await packAndInstall(process.env.BENCH_PACKAGE_DIR, sandbox.userFolder);
	else await buildAndInstall(sandbox.userFolder, log);
	// Concurrency 1: executions started together go to different workers ("all busy").
	const queue = await startN8nQueue(sandbox, { workers, concurrency: 1 });
	onCleanup('queue', () => queue.stop());
	const pid = findN8nPid(sandbox.install.n8nBin, sandbox.userFolder);
	return { queue, server: { name: 'main', server: queue.main, pid, credentials: new Set() } };
}

let rowCounter = 0;

/** The emulator for a row: a fresh key, the server's limit, every request recorded. */
function startRowEmulator(
	limit: number,
	headers: RateLimitHeaderStyle | undefined,
): Promise<BenchEmulator> {
	return startBenchEmulator({
		rateLimit: {
			limit,
			windowMs: WINDOW_MS,
			algorithm: ALGORITHM,
			headers,
			resetRounding: RESET_ROUNDING,
		},
		recordRequests: true,
	});
}

async function measureRow(
	queue: N8nQueue,
	server: BenchServer,
	busy: 'all' | 'one',
	limit: number,
	headers: RateLimitHeaderStyle | undefined,
	sameKey?: BenchEmulator,
): Promise<QueueRow> {
	const leadCount = WINDOWS_OF_LEADS * limit;
	const requestsPerMinute = (limit * 60_000) / WINDOW_MS;
	const workers = queue.workers.length;
	const executions = busy === 'all' ? workers : 1;
	// A fresh key per row (each worker keeps its pacing state per key for its lifetime), unless
	// the row follows another on the same key.
	const bench = sameKey ?? (await startRowEmulator(limit, headers));
	try {
		const id = `queue-${++rowCounter}`;
		// The hidden Rate Window Seconds shortens the credential's minute like the server's.
		const built = ourImportChain(id, {
			baseUrl: bench.emulator.baseUrl,
			apiKey: bench.apiKey,
			requestsPerMinute,
			windowSeconds: WINDOW_MS / 1000,
		});
		const deployed = await deploy(server, built.workflow, built.hookPath, [built.credential]);
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
		if (process.env.BENCH_QUEUE_LOG)
			writeRequestLog(process.env.BENCH_QUEUE_LOG, id, requests, perExecution);
		const workersUsed = queue.workers.filter((worker) =>
			worker.executionIds().some((executionId) => !before.has(executionId)),
		).length;
		return {
			workers,
			busy,
			executions,
			workersUsed,
			limit,
			headers,
			leads: leadCount,
			requests: requests.length,
			rateLimited: limitedAt.length,
			max429PerWindow: maxInAnyWindow(limitedAt, WINDOW_MS),
			lost: leadCount - bench.emulator.leads.size,
			executionsFailed: results.filter((result) => result.status !== 200).length,
			wallMs,
			fastestMs: Math.floor((leadCount - 1) / limit) * WINDOW_MS,
		};
	} finally {
		if (sameKey === undefined) await bench.stop();
	}
}

/** "All busy" (again three windows later, with AGAIN), then, a window later, "one busy" on the same key. */
async function measureRowsOnOneKey(
	queue: N8nQueue,
	server: BenchServer,
	limit: number,
	headers: RateLimitHeaderStyle | undefined,
): Promise<QueueRow[]> {
	const bench = await startRowEmulator(limit, headers);
	try {
		const rows = [await measureRow(queue, server, 'all', limit, headers, bench)];
		if (AGAIN) {
			await new Promise((resolve) => setTimeout(resolve, 3 * WINDOW_MS));
			rows.push(await measureRow(queue, server, 'all', limit, headers, bench));
		}
		// A window later every server has refilled: "fastest" is the same as from a fresh key.
		await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
		return [...rows, await measureRow(queue, server, 'one', limit, headers, bench)];
	} finally {
		await bench.stop();
	}
}

/** Each request of a row: ms after the row's first, status, and the execution its lead came from. */
function writeRequestLog(
	dir: string,
	id: string,
	requests: RecordedRequest[],
	leadsPerExecution: number,
): void {
	const log = requests.map((request) => {
		const lead = Number(/Lead (\d+)/.exec(request.body)?.[1]);
		// What the answer stated about the key's budget, when the server states it.
		const stated = Object.entries(request.answerHeaders ?? {})
			.filter(([name]) => /ratelimit/i.test(name))
			.map(([name, value]) => `${name}: ${value}`)
			.join('; ');
		return {
			ms: request.at - requests[0].at,
			status: request.status,
			execution: Math.floor(lead / leadsPerExecution),
			...(stated === '' ? {} : { stated }),
		};
	});
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, `${id}.json`), JSON.stringify(log));
}

/** NaN when the row lost leads: a fast failure is not a fast import. */
function ratio(row: QueueRow): number {
	if (row.lost > 0 || row.executionsFailed > 0) return Number.NaN;
	return row.fastestMs / row.wallMs;
}

function most429(row: QueueRow): number {
	if (row.headers === undefined) return MAX_429_SHARE * row.requests;
	return row.busy === 'one' ? 0 : MAX_429_SHARE_WITH_HEADERS * row.requests;
}

function targetMet(row: QueueRow): boolean {
	return (
		ratio(row) >= MIN_RATIO &&
		row.rateLimited <= most429(row) &&
		row.lost === 0 &&
		row.executionsFailed === 0
	);
}

/** One table per server limit; the notes shared by the tables come after the last one. */
function queueSection(rows: QueueRow[], notes: string[]): Section {
	const { limit, leads } = rows[0];
	const perMinute = (limit * 60_000) / WINDOW_MS;
	return {
		title: `Real queue mode: ${leads} leads at ${limit} requests per ${WINDOW_MS / 1000} s (${perMinute}/min)`,
		columns: [
			'headers',
			'workers',
			'busy',
			'executions (workers used)',
			'leads',
			'requests',
			'429s',
			'max 429 / window',
			'lost',
			'time s',
			'fastest s',
			'fastest ÷ time',
			'target',
		],
		rows: rows.map((row) => [
			row.headers ?? 'none',
			String(row.workers),
			row.busy === 'all' ? 'all' : 'one',
			`${row.executions} (${row.workersUsed})${row.executionsFailed ? `, ${row.executionsFailed} failed` : ''}`,
			String(row.leads),
			String(row.requests),
			`${row.rateLimited} (${fixed((100 * row.rateLimited) / Math.max(1, row.requests), 1)}%)`,
			String(row.max429PerWindow),
			String(row.lost),
			fixed(row.wallMs / 1000, 1),
			fixed(row.fastestMs / 1000, 1),
			fixed(ratio(row), 3),
			targetMet(row) ? 'met' : 'NOT met',
		]),
		notes,
	};
}

function queueNotes(rows: QueueRow[]): string[] {
	const limits = LIMITS.map((limit) => {
		const row = rows.find((r) => r.limit === limit);
		const evenlySpacedS = row ? ((row.leads - 1) * WINDOW_MS) / limit / 1000 : NaN;
		const best = row ? row.fastestMs / 1000 / evenlySpacedS : NaN;
		return { limit, evenlySpacedS, best };
	});
	const list = (values: string[]) => values.join(' and ');
	return [
		`n8n ${N8N_VERSION} in queue mode: Postgres and Redis as child processes on 127.0.0.1, one \`n8n start\` receiving the production webhook, N \`n8n worker\` processes (concurrency 1, so executions started together run on different workers) sharing one user folder with the package installed from its tarball. One run per row; each row uses a fresh key and a fresh server limiter (${ALGORITHM})${SAME_KEY ? ', except that each "one busy" row runs a window after the "all busy" row above it, on the same key' : ''}.`,
		`Two limits, both in ${WINDOW_MS / 1000} s windows so that a row takes a minute: 10 per window is the API's 60 per minute with time shrunk 6 times, which also makes a worker's share 3 to 5 requests per window, so one step of the budget is a whole request; 60 per window keeps the real minute's 60 requests per window (the granularity the budget meets against the real API) with time shrunk 6 times.`,
		"Credential Requests per Minute = the server's rate, with the hidden Rate Window Seconds = the server's window, in every execution: each worker process keeps its own budget for the key.",
		'busy = all: one execution per worker at once, the leads split evenly; busy = one: one execution with all the leads while the other workers idle.',
		`time: from the webhook calls until the last execution answered. fastest: when the server accepts the N-th request at the earliest, ⌊(N − 1) ÷ limit⌋ windows (each window's requests sent at once from a fresh key; on a token bucket with burst = limit, (N − burst) ÷ rate, the same here); a client spacing its requests evenly at the server's rate needs (N − 1) × window ÷ limit, ${list(limits.map((l) => `${fixed(l.evenlySpacedS, 0)} s`))} here, and reads ${list(limits.map((l) => fixed(l.best, 2)))} at best. Target: fastest ÷ time ≥ ${MIN_RATIO}, 429s ≤ ${100 * MAX_429_SHARE}% of requests, 0 lost; with headers 429s ≤ ${100 * MAX_429_SHARE_WITH_HEADERS}% (none with one worker busy).`,
	];
}

async function main(): Promise<void> {
	const rows: QueueRow[] = [];
	for (const workers of WORKER_COUNTS) {
		log(`starting queue mode with ${workers} workers`);
		const { queue, server } = await startQueue(workers);
		for (const limit of LIMITS) {
			for (const headers of HEADER_STYLES) {
				log(
					`${workers} workers, all busy then one busy${SAME_KEY ? ' on the same key' : ''}: ${WINDOWS_OF_LEADS * limit} leads at ${limit} per window, headers ${headers ?? 'none'}`,
				);
				const measured = SAME_KEY
					? await measureRowsOnOneKey(queue, server, limit, headers)
					: [
							await measureRow(queue, server, 'all', limit, headers),
							await measureRow(queue, server, 'one', limit, headers),
						];
				for (const row of measured) {
					log(
						`  ${row.busy} busy: ${row.requests} requests, ${row.rateLimited} × 429, lost ${row.lost}, ${fixed(row.wallMs / 1000, 1)} s, fastest ÷ time ${fixed(ratio(row), 3)}`,
					);
				}
				rows.push(...measured);
			}
		}
		await cleanupAll();
	}
	const markdown = LIMITS.map((limit, index) =>
		renderSection(
			queueSection(
				rows.filter((row) => row.limit === limit),
				index === LIMITS.length - 1 ? queueNotes(rows) : [],
			),
		),
	).join('\n\n');
	publishSection(
		'Queue mode',
		{ script: 'bench:queue', path: 'bench/queue.ts' },
		markdown,
		process.env.BENCH_QUEUE_WRITE !== '0',
	);
}

runBench('bench:queue', main);
