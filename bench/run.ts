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
import { distinct, fixed, sum } from './lib/stats';
import { overheadSection, overheadVerdict, runOverhead, type OverheadRun } from './overhead';
import { runRateScenarios, type RateResult } from './rate';
import { meetsTarget, rateSection } from './rateReport';
import { QUEUE_SCENARIOS, RATE_MATRIX, RATE_SCENARIOS } from './rateScenarios';
import { listCallsSection, recordingAboveBaselineMb, recordingSection } from './memory';
import { runListCalls, runRecording, type ListCallsRun, type RecordingRun } from './memory';

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

interface Measured {
	rate: RateResult[];
	overhead?: OverheadRun[];
	recording?: RecordingRun[];
	listCalls?: ListCallsRun[];
}

/** The one-paragraph verdicts at the top of BENCHMARKS.md, from the measured results. */
function summarize(measured: Measured): string[] {
	const lines: string[] = [];
	const ours = measured.rate.filter((r) => r.scenario.client === 'ours');
	if (ours.length > 0) {
		const verdict = (target: string) => {
			const runs = ours.filter((r) => r.scenario.target === target);
			return runs.length === 0 ? '-' : runs.every((r) => meetsTarget(r)) ? 'met' : 'NOT met';
		};
		const windows = ours.filter((r) => r.scenario.target === 'fastest');
		const learn = ours.filter((r) => r.scenario.target === 'learn');
		const stated = ours.filter((r) => r.scenario.target === 'stated');
		lines.push(
			`Rate budget in a real n8n: servers told the true budget ${verdict('fastest')} (worst time ÷ fastest ${fixed(Math.max(...windows.map((r) => r.outcome.timeRatio)), 3)}, ${sum(windows.map((r) => r.outcome.rateLimited))} × 429; target ≤ 1.05, 0 × 429); token bucket without burst ${verdict('learn')} (at most ${Math.max(0, ...learn.map((r) => r.outcome.rateLimited))} × 429 per run; target ≤ 1, then ≥ 0.95 of the rate); a credential above the limit the server states ${verdict('stated')} (worst time ÷ fastest ${fixed(Math.max(...stated.map((r) => r.outcome.timeRatio)), 3)}, at most ${Math.max(0, ...stated.map((r) => r.outcome.rateLimited))} × 429 per run; target ≤ 1 × 429, ≥ 0.95 of fastest); stricter servers (burst = limit, another client, two n8n processes) ${verdict('correct')} (0 lost); ${sum(ours.map((r) => r.lost))} leads lost in all.`,
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
		const extra = verdict.extraCpuMsPerItem;
		const cpu =
			extra >= 0
				? `adds ${fixed(extra, 3)} ms of n8n CPU per item to the HTTP work`
				: `uses ${fixed(-extra, 3)} ms less n8n CPU per item than the HTTP Request node`;
		lines.push(
			`Overhead: our node ${cpu} (target ≤ +0.5 ms: ${verdict.cpuMet ? 'met' : 'NOT met'}); wall time ours ÷ HTTP Request ${fixed(verdict.wallRatio)} (target ≤ 1: ${verdict.wallMet ? 'met' : 'NOT met, see the note in section 2'}).`,
		);
	}
	if (measured.listCalls) {
		const pages = measured.listCalls.map((run) => run.pages);
		lines.push(
			`List Calls over 50 000 calls: ${distinct(pages)} pages for a minimum of 500 (${pages.every((count) => count === 500) ? 'met' : 'NOT met'}).`,
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

runBench('bench', main);
