/** Section 1 as a table: one row per scenario, its runs aggregated. */
import type { Section } from './lib/report';
import { fixed, median, medianRange, sum } from './lib/stats';
import type { RateResult } from './rate';
import { ALLOWED_RPM, LEADS, LIMIT, RETRY_WAIT_MS, serverLabel } from './rateScenarios';

export function meetsTarget(result: RateResult): boolean | undefined {
	const { target } = result.scenario;
	if (target === 'none') return undefined;
	if (result.lost !== 0 || result.executionsFailed !== 0) return false;
	const { timeRatio, rateLimited, rateAfter429, rateRatio } = result.outcome;
	// NaN (nothing to measure) fails the comparisons, as it should.
	if (target === 'fastest') return rateLimited === 0 && timeRatio <= 1.05;
	if (target === 'stated') return rateLimited <= 1 && timeRatio <= 1 / 0.95;
	if (target === 'learn') {
		return rateLimited <= 1 && (rateLimited === 0 ? rateRatio : rateAfter429) >= 0.95;
	}
	return true;
}

/** One table row for all runs of a scenario: totals, the worst case, and the median rate. */
function rateRow(runs: RateResult[]): string[] {
	const { scenario } = runs[0];
	const verdicts = runs.map(meetsTarget);
	const failed = sum(runs.map((r) => r.executionsFailed));
	const executions = sum(runs.map((r) => r.executions));
	const others = runs.flatMap((r) => (r.otherClient ? [r.otherClient] : []));
	const other =
		others.length > 0
			? ` + other client ${sum(others.map((o) => o.accepted))} ok / ${sum(others.map((o) => o.rateLimited))} × 429`
			: '';
	const measured = (values: number[]) => {
		const known = values.filter((value) => Number.isFinite(value));
		return known.length === 0 ? '-' : medianRange(known, 3);
	};
	return [
		scenario.label,
		serverLabel(scenario),
		String(runs.length),
		`${sum(runs.map((r) => r.imported))}/${scenario.leads * runs.length}${failed > 0 ? ` (${failed}/${executions} executions failed)` : ''}`,
		String(sum(runs.map((r) => r.lost))),
		`${sum(runs.map((r) => r.outcome.sent))}${other}`,
		String(sum(runs.map((r) => r.outcome.rateLimited))),
		String(Math.max(...runs.map((r) => r.outcome.max429PerWindow))),
		scenario.client === 'ours' ? measured(runs.map((r) => r.outcome.timeRatio)) : '-',
		measured(runs.map((r) => r.outcome.rateRatio)),
		measured(runs.map((r) => r.outcome.rateAfter429)),
		fixed(median(runs.map((r) => r.wallMs / 1000)), 1),
		verdicts[0] === undefined ? '-' : verdicts.every(Boolean) ? 'met' : 'NOT met',
	];
}

export function rateSection(results: RateResult[]): Section {
	const scenarios = [...new Set(results.map((result) => result.scenario))];
	return {
		title: `1. ${LEADS} leads at ${LIMIT.requests} requests per ${LIMIT.windowMs / 1000} s (${ALLOWED_RPM}/min)`,
		columns: [
			'client',
			'server algorithm',
			'runs',
			'imported',
			'lost',
			'requests',
			'429s',
			'max 429 / window',
			'time ÷ fastest',
			'rate ÷ allowed',
			'after the 1st 429',
			'wall s',
			'target',
		],
		rows: scenarios.map((scenario) => rateRow(results.filter((r) => r.scenario === scenario))),
		notes: [
			`Credential Requests per Minute = ${ALLOWED_RPM} (the server's rate) with its hidden Rate Window Seconds = ${LIMIT.windowMs / 1000}: the service's 60 per minute in windows 6 times shorter. Rows with several runs give totals over the runs (imported, lost, requests, 429s), the worst run (max 429 / window), the median with the range in brackets (ratios) and the median wall time; each run uses a fresh key.`,
			`time ÷ fastest: from the first lead request to the last accepted one, as the emulator saw them, ÷ the least the server allows for ${LEADS} leads: whole windows on window servers ((⌈N ÷ ${LIMIT.requests}⌉ − 1) × ${LIMIT.windowMs / 1000} s, the fixed window counted like the sliding one), (N − burst) ÷ rate on a token bucket; as if the key were the node's alone. On a token bucket with burst = limit the node waits for whole windows (it cannot tell the bucket from a window server without a 429): about 1.3 for 25 leads.`,
			`rate ÷ allowed: the key's steady rate ÷ the allowed rate (accepted requests per second over the whole run, or after the server's initial allowance if that is lower). after the 1st 429: the node's accepted rate after its first 429 ÷ the allowed rate.`,
			`HTTP Request set-ups: defaults; Retry On Fail with Max Tries 5 and Wait Between Tries ${RETRY_WAIT_MS} ms (n8n's maximum 5000 ms scaled by the window, ${LIMIT.windowMs / 1000} s instead of 60 s: all retries fall in the same window, as they do against the real 60 s limit); batching ${LIMIT.requests} items every ${LIMIT.windowMs} ms. The key goes in an Authorization header.`,
			'Targets for our node: servers told the true budget (window servers, a token bucket stating its count, two executions on one key): time ÷ fastest ≤ 1.05 and 0 × 429; token bucket without burst: ≤ 1 × 429, then ≥ 0.95 of the rate; a credential above the limit the server states in its headers: ≤ 1 × 429 and ≥ 0.95 of fastest (time ÷ fastest ≤ 1.053); everywhere else (burst = limit, another client, two n8n processes on one key): 0 lost.',
		],
	};
}
