/**
 * `npm run bench`: throughput, overhead and memory of the node inside a real n8n, against the
 * API emulator. Prints Markdown tables and writes BENCHMARKS.md. Not part of `npm test`.
 *
 * Two long-lived n8n processes: A runs the rate-limit rows and the overhead runs; B, fresh, runs
 * the 200 MB download first (so its baseline is an idle process) and then List Calls. Queue mode
 * needs two processes, so it runs last on A and B together.
 *
 * BENCH_ONLY=rate,overhead,recording,listCalls,queue runs a subset (BENCHMARKS.md is then not
 * written).
 */
import * as fs from 'fs';
import * as path from 'path';

import { N8N_VERSION, NODE24_VERSION, REPO_DIR } from '../test/e2e/harness';
import { cleanupAll, cleanupOnSignals } from './lib/cleanup';
import { startBenchServer, type BenchServer } from './lib/n8n';
import { describeMachine, renderReport, renderSection, type Section } from './lib/report';
import { fixed } from './lib/stats';
import { listCallsSection, runListCalls, type ListCallsRun } from './listCalls';
import { overheadSection, overheadVerdict, runOverhead, type OverheadResult } from './overhead';
import {
	meetsTarget,
	QUEUE_SCENARIOS,
	RATE_SCENARIOS,
	rateSection,
	runRateScenario,
	type RateResult,
	type RateScenario,
} from './rate';
import {
	recordingAboveBaselineMb,
	recordingSection,
	runRecording,
	type RecordingRun,
} from './recording';

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
		log(
			`rate: ${scenario.label} on ${scenario.algorithm}${scenario.burst ? ` burst ${scenario.burst}` : ''}`,
		);
		const result = await runRateScenario(scenario, servers);
		log(
			`  imported ${result.imported}/${scenario.leads}, 429s ${result.outcome.rateLimited}, rate ÷ allowed ${fixed(result.outcome.rateRatio)}`,
		);
		results.push(result);
	}
	return results;
}

interface Measured {
	rate: RateResult[];
	overhead?: OverheadResult;
	recording?: RecordingRun[];
	listCalls?: ListCallsRun[];
}

function summarize(measured: Measured): string[] {
	const lines: string[] = [];
	const paced = measured.rate.filter((r) => r.scenario.target === 'pace');
	if (paced.length > 0) {
		const worst = Math.min(...paced.map((r) => r.outcome.rateRatio));
		const most429 = Math.max(...paced.map((r) => r.outcome.max429PerWindow));
		const lost = paced.reduce((sum, r) => sum + r.lost, 0);
		const met = paced.every((r) => meetsTarget(r));
		lines.push(
			`Pacing (our node, every server algorithm, shared executions): ${met ? 'met' : 'NOT met'}; lowest rate ÷ allowed ${fixed(worst)} (target ≥ 0.97), at most ${most429} 429 per window (target ≤ 1), ${lost} leads lost.`,
		);
	}
	const correct = measured.rate.filter((r) => r.scenario.target === 'correct');
	if (correct.length > 0) {
		lines.push(
			`Server stricter than the credential (another client on the key, queue mode): ${correct.every((r) => meetsTarget(r)) ? 'no lead lost' : 'leads LOST'}; ${correct.map((r) => `${r.scenario.label}: ${r.outcome.rateLimited} × 429`).join('; ')}.`,
		);
	}
	const http = measured.rate.filter((r) => r.scenario.client !== 'ours');
	if (http.length > 0) {
		lines.push(
			`HTTP Request node: ${http.map((r) => `${r.scenario.label.replace('HTTP Request, ', '')} (${r.scenario.algorithm}${r.scenario.burst ? ` burst ${r.scenario.burst}` : ''}) imported ${r.imported}/${r.scenario.leads} with ${r.outcome.rateLimited} × 429`).join('; ')}.`,
		);
	}
	if (measured.overhead) {
		const verdict = overheadVerdict(measured.overhead);
		lines.push(
			`Overhead: our node adds ${fixed(verdict.extraCpuMsPerItem, 3)} ms of n8n CPU per item above the HTTP Request node (target ≤ 0.5: ${verdict.cpuMet ? 'met' : 'NOT met'}); wall time ours ÷ HTTP Request ${fixed(verdict.wallRatio)} (target ≤ 1: ${verdict.wallMet ? 'met' : 'NOT met'}).`,
		);
	}
	if (measured.listCalls) {
		const pages = measured.listCalls.map((run) => run.pages);
		lines.push(
			`List Calls over 50 000 calls: ${[...new Set(pages)].join(', ')} pages for a minimum of 500 (${pages.every((p) => p === 500) ? 'met' : 'NOT met'}).`,
		);
	}
	if (measured.recording) {
		const above = recordingAboveBaselineMb(measured.recording);
		lines.push(
			`200 MB recording: peak RSS ${fixed(above, 1)} MB above baseline (target < 64: ${above < 64 ? 'met' : 'NOT met'}).`,
		);
	}
	return lines;
}

async function main(): Promise<void> {
	cleanupOnSignals();
	const groups = selectedGroups();
	const startedAt = new Date();
	const started = performance.now();
	const measured: Measured = { rate: [] };

	const needsA = groups.has('rate') || groups.has('overhead') || groups.has('queue');
	const needsB = groups.has('recording') || groups.has('listCalls') || groups.has('queue');
	log('starting n8n servers');
	const [a, b] = await Promise.all([
		needsA ? startBenchServer('a') : undefined,
		needsB ? startBenchServer('b', { binaryDataMode: 'filesystem' }) : undefined,
	]);
	log(`n8n ready (A pid ${a?.pid ?? '-'}, B pid ${b?.pid ?? '-'})`);

	if (a && groups.has('rate')) measured.rate.push(...(await runScenarios(RATE_SCENARIOS, [a])));
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
		fs.writeFileSync(path.join(REPO_DIR, 'BENCHMARKS.md'), report);
		log('wrote BENCHMARKS.md');
	}
}

main()
	.catch(async (error) => {
		console.error(`[bench] failed: ${(error as Error).stack ?? String(error)}`);
		process.exitCode = 1;
	})
	.finally(async () => {
		await cleanupAll();
	});
