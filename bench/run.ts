/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run bench`: throughput, overhead and memory of the node inside a real n8n, against the
 * API emulator. Prints Markdown tables and writes BENCHMARKS.md. Not part of `npm test`.
 *
 * Two long-lived n8n processes: A runs the rate-limit rows and the overhead runs; B, fresh, runs
 * the 200 MB download first (so its baseline is an idle process) and then List Calls. Queue mode
 * needs two processes, so it runs last on A and B together.
 *
 * Environment (for investigating, not needed for `npm run bench`):
 *   BENCH_ONLY=rate,overhead,recording,listCalls,queue  a subset (BENCHMARKS.md is then not written)
 *   BENCH_PACKAGE_DIR=<dir>  install another build of the package, e.g. to compare before/after
 *   BENCH_DEBUG=1            print the arrival gaps of every rate-limit run
 *   BENCH_RATE_ROWS=<a,b>    only the rate-limit rows whose label or headers contain one of these
 */
import * as fs from 'fs';
import * as path from 'path';

import { N8N_VERSION, NODE24_VERSION, REPO_DIR } from '../devkit/n8n';
import { cleanupAll, runBench } from './lib/cleanup';
import { startBenchServer, type BenchServer } from './lib/n8n';
import {
	describeMachine,
	keptSection,
	renderReport,
	renderSection,
	type Section,
} from './lib/report';
import { fixed } from './lib/stats';
import { listCallsSection, runListCalls } from './listCalls';
import { overheadSection, runOverhead } from './overhead';
import { runRateScenario, type RateResult } from './rate';
import { rateSection } from './rateReport';
import { QUEUE_SCENARIOS, RATE_MATRIX, RATE_SCENARIOS, type RateScenario } from './rateScenarios';
import { recordingSection, runRecording } from './recording';
import { summarize, type Measured } from './summary';

const GROUPS = ['rate', 'overhead', 'recording', 'listCalls', 'queue'] as const;
type Group = (typeof GROUPS)[number];

function selectedGroups(): Set<Group> {
	const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
	if (!only) return new Set(GROUPS);
	const unknown = only.filter((name) => !(GROUPS as readonly string[]).includes(name));
	if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown ${unknown.join(', ')}`);
	return new Set(only as Group[]);
}

function log(message: string): void {
	console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

async function runScenarios(
	scenarios: RateScenario[],
	servers: BenchServer[],
): Promise<RateResult[]> {
	const results: RateResult[] = [];
	for (const scenario of scenarios) {
		for (let repeat = 0; repeat < (scenario.repeats ?? 1); repeat++) {
			log(
				`rate: ${scenario.label} on ${scenario.algorithm}${scenario.burst ? ` burst ${scenario.burst}` : ''}`,
			);
			const result = await runRateScenario(scenario, servers);
			log(
				`  imported ${result.imported}/${scenario.leads}, 429s ${result.outcome.rateLimited}, rate ÷ allowed ${fixed(result.outcome.rateRatio, 3)}`,
			);
			results.push(result);
		}
	}
	return results;
}

/** A normal run takes about 9 minutes; past this something hangs (an n8n that never answers). */
const WATCHDOG_MS = 30 * 60_000;

async function main(): Promise<void> {
	const watchdog = setTimeout(() => {
		console.error(`[bench] still running after ${WATCHDOG_MS / 60_000} minutes: giving up`);
		void cleanupAll().finally(() => process.exit(1));
	}, WATCHDOG_MS);
	watchdog.unref();
	const groups = selectedGroups();
	const startedAt = new Date();
	const started = performance.now();
	const measured: Measured = { rate: [] };

	const needsA = groups.has('rate') || groups.has('overhead') || groups.has('queue');
	const needsB = groups.has('recording') || groups.has('listCalls') || groups.has('queue');
	log('starting n8n servers');
	// allSettled: if one start fails, the other must have registered its clean-up before we exit.
	const servers = await Promise.allSettled([
		needsA ? startBenchServer('a') : undefined,
		needsB ? startBenchServer('b', { binaryDataMode: 'filesystem' }) : undefined,
	]);
	const failed = servers.find((result) => result.status === 'rejected');
	if (failed) throw (failed as PromiseRejectedResult).reason;
	const [a, b] = servers.map(
		(result) => (result as PromiseFulfilledResult<BenchServer | undefined>).value,
	);
	log(`n8n ready (A pid ${a?.pid ?? '-'}, B pid ${b?.pid ?? '-'})`);

	const rateRows = process.env.BENCH_RATE_ROWS?.split(',');
	const rateScenarios = (
		process.env.BENCH_RATE_MATRIX === '1' ? RATE_MATRIX : RATE_SCENARIOS
	).filter(
		(scenario) =>
			!rateRows ||
			rateRows.some((text) => `${scenario.label} ${scenario.headers ?? ''}`.includes(text)),
	);
	if (a && groups.has('rate')) measured.rate.push(...(await runScenarios(rateScenarios, [a])));
	if (a && groups.has('overhead')) {
		log('overhead: 10 000 imports, ours and HTTP Request');
		measured.overhead = await runOverhead(a);
	}
	if (b && groups.has('recording')) {
		log('recording: 200 MB download');
		measured.recording = await runRecording(b);
	}
	if (b && groups.has('listCalls')) {
		log('list calls: 50 000 calls');
		measured.listCalls = await runListCalls(b);
	}
	if (a && b && groups.has('queue')) {
		measured.rate.push(...(await runScenarios(QUEUE_SCENARIOS, [a, b])));
	}
	await cleanupAll();

	const sections: Section[] = [];
	if (measured.rate.length > 0) sections.push(rateSection(measured.rate));
	if (measured.overhead) sections.push(overheadSection(measured.overhead));
	if (measured.listCalls) sections.push(listCallsSection(measured.listCalls));
	if (measured.recording) sections.push(recordingSection(measured.recording));
	const summary = summarize(measured);
	console.log(sections.map(renderSection).join('\n\n'));
	console.log(`\nSummary:\n${summary.map((line) => `- ${line}`).join('\n')}`);

	if (groups.size === GROUPS.length) {
		const report = renderReport(
			{
				machine: describeMachine(),
				n8nVersion: N8N_VERSION,
				n8nNode: NODE24_VERSION,
				benchNode: process.versions.node,
				startedAt,
				durationS: (performance.now() - started) / 1000,
			},
			sections,
			summary,
		);
		const file = path.join(REPO_DIR, 'BENCHMARKS.md');
		const kept = [
			keptSection(file, 'Queue mode', 'bench:queue'),
			keptSection(file, 'Re-sync', 'bench:resync'),
		];
		fs.writeFileSync(
			file,
			`${report.trimEnd()}\n\n${kept.map((part) => part.trimEnd()).join('\n\n')}\n`,
		);
		log('wrote BENCHMARKS.md');
	}
}

runBench('bench', main);
