/** The one-paragraph verdicts at the top of BENCHMARKS.md, from the measured results. */
import type { ListCallsRun } from './listCalls';
import { overheadVerdict, type OverheadResult } from './overhead';
import type { RateResult } from './rate';
import { meetsTarget } from './rateReport';
import { recordingAboveBaselineMb, type RecordingRun } from './recording';
import { fixed } from './lib/stats';

export interface Measured {
	rate: RateResult[];
	overhead?: OverheadResult;
	recording?: RecordingRun[];
	listCalls?: ListCallsRun[];
}

export function summarize(measured: Measured): string[] {
	const lines: string[] = [];
	const paced = measured.rate.filter((r) => r.scenario.target === 'pace');
	if (paced.length > 0) {
		const worst = Math.min(...paced.map((r) => r.outcome.rateRatio));
		const most429 = Math.max(...paced.map((r) => r.outcome.max429PerWindow));
		const lost = paced.reduce((sum, r) => sum + r.lost, 0);
		const met = paced.every((r) => meetsTarget(r));
		lines.push(
			`Pacing (our node on every server algorithm, two executions on one key, two n8n processes at 30/min each): ${met ? 'met' : 'NOT met'}; lowest rate ÷ allowed ${fixed(worst)} (target ≥ 0.97), at most ${most429} 429 in any window (target ≤ 1), ${lost} leads lost.`,
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
			`List Calls over 50 000 calls: ${[...new Set(pages)].join(', ')} pages for a minimum of 500 (${pages.every((count) => count === 500) ? 'met' : 'NOT met'}).`,
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
