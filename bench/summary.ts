/** The one-paragraph verdicts at the top of BENCHMARKS.md, from the measured results. */
import type { ListCallsRun } from './listCalls';
import { overheadVerdict, type OverheadRun } from './overhead';
import type { RateResult } from './rate';
import { meetsTarget } from './rateReport';
import { recordingAboveBaselineMb, type RecordingRun } from './recording';
import { distinct, fixed, sum } from './lib/stats';

export interface Measured {
	rate: RateResult[];
	overhead?: OverheadRun[];
	recording?: RecordingRun[];
	listCalls?: ListCallsRun[];
}

export function summarize(measured: Measured): string[] {
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
