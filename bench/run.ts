/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev code, not in the package n8n loads: node rules do not apply */
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
 *   BENCH_RATE_MATRIX=1      issue 35's single-process matrix instead of the usual rate rows
 */
import { cleanupAll, logger, runBench } from './lib/cleanup';
import { startBenchServer } from './lib/n8n';
import { renderSection, writeReport, type Section } from './lib/report';
import { listCallsSection, runListCalls } from './listCalls';
import { overheadSection, runOverhead } from './overhead';
import { runRateScenarios } from './rate';
import { rateSection } from './rateReport';
import { QUEUE_SCENARIOS, RATE_MATRIX, RATE_SCENARIOS } from './rateScenarios';
import { recordingSection, runRecording } from './recording';
import { summarize, type Measured } from './summary';

const GROUPS = ['rate', 'overhead', 'recording', 'listCalls', 'queue'];
const log = logger('bench');

/** A normal run takes about 9 minutes; past this something hangs (an n8n that never answers). */
const WATCHDOG_MS = 30 * 60_000;

async function main(): Promise<void> {
	const watchdog = setTimeout(() => {
		console.error(`[bench] still running after ${WATCHDOG_MS / 60_000} minutes: giving up`);
		void cleanupAll().finally(() => process.exit(1));
	}, WATCHDOG_MS);
	watchdog.unref();
	const groups = new Set(process.env.BENCH_ONLY?.split(',').map((name) => name.trim()) ?? GROUPS);
	const unknown = [...groups].filter((name) => !GROUPS.includes(name));
	if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown ${unknown.join(', ')}`);
	const startedAt = new Date();
	const measured: Measured = { rate: [] };

	const needsA = groups.has('rate') || groups.has('overhead') || groups.has('queue');
	const needsB = groups.has('recording') || groups.has('listCalls') || groups.has('queue');
	log('starting n8n servers');
	// allSettled: if one start fails, the other must have registered its clean-up before we exit.
	const servers = await Promise.allSettled([
		needsA ? startBenchServer('a') : undefined,
		needsB ? startBenchServer('b', { binaryDataMode: 'filesystem' }) : undefined,
	]);
	const [a, b] = servers.map((result) => {
		if (result.status === 'rejected') throw result.reason;
		return result.value;
	});
	log(`n8n ready (A pid ${a?.pid ?? '-'}, B pid ${b?.pid ?? '-'})`);

	const rows = process.env.BENCH_RATE_ROWS?.split(',');
	const rateScenarios = (
		process.env.BENCH_RATE_MATRIX === '1' ? RATE_MATRIX : RATE_SCENARIOS
	).filter(
		(row) => !rows || rows.some((text) => `${row.label} ${row.headers ?? ''}`.includes(text)),
	);
	if (a && groups.has('rate'))
		measured.rate.push(...(await runRateScenarios(rateScenarios, [a], log)));
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
		measured.rate.push(...(await runRateScenarios(QUEUE_SCENARIOS, [a, b], log)));
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
		writeReport(startedAt, sections, summary);
		log('wrote BENCHMARKS.md');
	}
}

runBench('bench', main);
