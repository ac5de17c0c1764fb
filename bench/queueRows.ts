/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run bench:queue`'s settings (read from the environment, listed in bench/queue.ts), its
 * row, its targets and how a row is shown: the table for BENCHMARKS.md, the per-window timeline
 * and the request log.
 */
import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';

import type {
	RateLimitAlgorithm,
	RateLimitHeaderStyle,
	RecordedRequest,
	ResetRounding,
} from '../devkit/emulator';
import { N8N_VERSION } from '../devkit/n8n';
import { logger } from './lib/cleanup';
import type { Section } from './lib/report';
import type { QueueRow } from './queue';
import { fixed } from './lib/stats';
import { LIMIT } from './rateScenarios';

const env = process.env;
export const QUEUE = {
	windowMs: Number(env.BENCH_QUEUE_WINDOW_S ?? LIMIT.windowMs / 1000) * 1000,
	limits: (env.BENCH_QUEUE_LIMITS ?? '10,60').split(',').map(Number),
	windowsOfLeads: Number(env.BENCH_QUEUE_WINDOWS ?? 6),
	algorithm: (env.BENCH_QUEUE_ALGORITHM ?? 'sliding-log') as RateLimitAlgorithm,
	workerCounts: (env.BENCH_QUEUE_WORKERS ?? '2,3').split(',').map(Number),
	busy: (env.BENCH_QUEUE_BUSY ?? 'all,one').split(',') as Array<'all' | 'one'>,
	runs: Number(env.BENCH_QUEUE_RUNS ?? 1),
	sameKey: env.BENCH_QUEUE_SAME_KEY === '1',
	again: env.BENCH_QUEUE_AGAIN === '1',
	resetRounding: env.BENCH_QUEUE_RESET_ROUNDING as ResetRounding | undefined,
	headerStyles: (env.BENCH_QUEUE_HEADERS ?? 'none,ietf')
		.split(',')
		.map((style) => (style === 'none' ? undefined : (style as RateLimitHeaderStyle))),
	requestLogDir: env.BENCH_QUEUE_LOG,
	write: env.BENCH_QUEUE_WRITE !== '0',
};

/**
 * Targets: time ÷ fastest ≥ 0.9 (as fastest ÷ time), 0 lost, and 429s ≤ 5% of requests; with
 * rate-limit headers ≤ 2%, none with one worker busy (issue 20).
 */
const MIN_RATIO = 0.9;
const MAX_429_SHARE = 0.05;
const MAX_429_SHARE_WITH_HEADERS = 0.02;

export const log = logger('bench:queue');

/** Accepted/refused per tenth of a window: where the 429s and the unused places fall. */
export function timeline(requests: RecordedRequest[]): string {
	if (requests.length === 0) return '';
	const start = requests[0].at;
	const slotMs = QUEUE.windowMs / 10;
	const slots: Array<[number, number]> = [];
	for (const request of requests) {
		const slot = Math.floor((request.at - start) / slotMs);
		while (slots.length <= slot) slots.push([0, 0]);
		slots[slot][request.status === 429 ? 1 : 0]++;
	}
	return slots.map(([accepted, refused]) => `${accepted}/${refused}`).join(' ');
}

/** Each request of a row: ms after the row's first, status, and the execution its lead came from. */
export function writeRequestLog(
	dir: string,
	id: string,
	requests: RecordedRequest[],
	leadsPerExecution: number,
): void {
	const entries = requests.map((request) => {
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
	writeFileSync(join(dir, `${id}.json`), JSON.stringify(entries));
}

/** NaN when the row lost leads: a fast failure is not a fast import. */
export function ratio(row: QueueRow): number {
	if (row.lost > 0 || row.executionsFailed > 0) return Number.NaN;
	return row.fastestMs / row.wallMs;
}

function targetMet(row: QueueRow): boolean {
	const withHeaders = row.busy === 'one' ? 0 : MAX_429_SHARE_WITH_HEADERS;
	const most429 = row.headers === undefined ? MAX_429_SHARE : withHeaders;
	return ratio(row) >= MIN_RATIO && row.rateLimited <= most429 * row.requests;
}

/** The table's columns: each one's title and how a row fills it. */
const COLUMNS: Array<[string, (row: QueueRow) => string | number]> = [
	['headers', (row) => row.headers ?? 'none'],
	['workers', (row) => row.workers],
	['busy', (row) => row.busy],
	[
		'executions (workers used)',
		(row) =>
			`${row.executions} (${row.workersUsed})${row.executionsFailed ? `, ${row.executionsFailed} failed` : ''}`,
	],
	['leads', (row) => row.leads],
	['requests', (row) => row.requests],
	[
		'429s',
		(row) =>
			`${row.rateLimited} (${fixed((100 * row.rateLimited) / Math.max(1, row.requests), 1)}%)`,
	],
	['max 429 / window', (row) => row.max429PerWindow],
	['lost', (row) => row.lost],
	['time s', (row) => fixed(row.wallMs / 1000, 1)],
	['fastest s', (row) => fixed(row.fastestMs / 1000, 1)],
	['fastest ÷ time', (row) => fixed(ratio(row), 3)],
	['target', (row) => (targetMet(row) ? 'met' : 'NOT met')],
];

/** One table per server limit; the notes shared by the tables come after the last one. */
export function queueSection(rows: QueueRow[], notes: string[]): Section {
	const { limit, leads } = rows[0];
	const perMinute = (limit * 60_000) / QUEUE.windowMs;
	return {
		title: `Real queue mode: ${leads} leads at ${limit} requests per ${QUEUE.windowMs / 1000} s (${perMinute}/min)`,
		columns: COLUMNS.map(([title]) => title),
		rows: rows.map((row) => COLUMNS.map(([, cell]) => String(cell(row)))),
		notes,
	};
}

export function queueNotes(rows: QueueRow[]): string[] {
	const windowS = QUEUE.windowMs / 1000;
	const limits = QUEUE.limits.map((limit) => {
		const row = rows.find((r) => r.limit === limit);
		const evenlySpacedS = row ? ((row.leads - 1) * QUEUE.windowMs) / limit / 1000 : NaN;
		const best = row ? row.fastestMs / 1000 / evenlySpacedS : NaN;
		return { limit, evenlySpacedS, best };
	});
	const list = (values: string[]) => values.join(' and ');
	return [
		`n8n ${N8N_VERSION} in queue mode: Postgres and Redis as child processes on 127.0.0.1, one \`n8n start\` receiving the production webhook, N \`n8n worker\` processes (concurrency 1, so executions started together run on different workers) sharing one user folder with the package installed from its tarball. One run per row; each row uses a fresh key and a fresh server limiter (${QUEUE.algorithm})${QUEUE.sameKey ? ', except that each "one busy" row runs a window after the "all busy" row above it, on the same key' : ''}.`,
		`Two limits, both in ${windowS} s windows so that a row takes a minute: 10 per window is the API's 60 per minute with time shrunk 6 times, which also makes a worker's share 3 to 5 requests per window, so one step of the budget is a whole request; 60 per window keeps the real minute's 60 requests per window (the granularity the budget meets against the real API) with time shrunk 6 times.`,
		"Credential Requests per Minute = the server's rate, with the hidden Rate Window Seconds = the server's window, in every execution: each worker process keeps its own budget for the key.",
		'busy = all: one execution per worker at once, the leads split evenly; busy = one: one execution with all the leads while the other workers idle.',
		`time: from the webhook calls until the last execution answered. fastest: when the server accepts the N-th request at the earliest, ⌊(N − 1) ÷ limit⌋ windows (each window's requests sent at once from a fresh key; on a token bucket with burst = limit, (N − burst) ÷ rate, the same here); a client spacing its requests evenly at the server's rate needs (N − 1) × window ÷ limit, ${list(limits.map((l) => `${fixed(l.evenlySpacedS, 0)} s`))} here, and reads ${list(limits.map((l) => fixed(l.best, 2)))} at best. Target: fastest ÷ time ≥ ${MIN_RATIO}, 429s ≤ ${100 * MAX_429_SHARE}% of requests, 0 lost; with headers 429s ≤ ${100 * MAX_429_SHARE_WITH_HEADERS}% (none with one worker busy).`,
	];
}
