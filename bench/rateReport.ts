/** Section 1 as a table: one row per scenario, its runs aggregated. */
import type { Section } from './lib/report';
import { fixed, median, medianRange } from './lib/stats';
import type { RateResult } from './rate';
import {
	ALLOWED_RPM,
	LEADS,
	LIMIT,
	RETRY_WAIT_MS,
	serverLabel,
	type RateScenario,
} from './rateScenarios';

export function meetsTarget(result: RateResult): boolean | undefined {
	const { target } = result.scenario;
	if (target === 'none') return undefined;
	if (result.lost !== 0 || result.executionsFailed !== 0) return false;
	if (target === 'correct') return true;
	// NaN (nothing beyond the allowance) fails the comparison, as it should.
	return result.outcome.rateRatio >= 0.97 && result.outcome.max429PerWindow <= 1;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

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
	const ratios = runs.map((r) => r.outcome.rateRatio).filter((ratio) => !Number.isNaN(ratio));
	return [
		scenario.label,
		serverLabel(scenario),
		String(runs.length),
		`${sum(runs.map((r) => r.imported))}/${scenario.leads * runs.length}${failed > 0 ? ` (${failed}/${executions} executions failed)` : ''}`,
		String(sum(runs.map((r) => r.lost))),
		`${sum(runs.map((r) => r.outcome.sent))}${other}`,
		String(sum(runs.map((r) => r.outcome.rateLimited))),
		String(Math.max(...runs.map((r) => r.outcome.max429PerWindow))),
		ratios.length === 0 ? '-' : medianRange(ratios, 3),
		fixed(median(runs.map((r) => r.wallMs / 1000)), 1),
		verdicts[0] === undefined ? '-' : verdicts.every(Boolean) ? 'met' : 'NOT met',
	];
}

export function rateSection(results: RateResult[]): Section {
	const byScenario = new Map<RateScenario, RateResult[]>();
	for (const result of results) {
		byScenario.set(result.scenario, [...(byScenario.get(result.scenario) ?? []), result]);
	}
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
			'rate ÷ allowed',
			'wall s',
			'target',
		],
		rows: [...byScenario.values()].map(rateRow),
		notes: [
			`Credential Requests per Minute = ${ALLOWED_RPM} (the server's rate) unless the row says otherwise. Rows with several runs give totals over the runs (imported, lost, requests, 429s), the worst run (max 429 / window), the median with the range in brackets (rate) and the median wall time; each run uses a fresh key.`,
			`rate ÷ allowed: the key's steady rate ÷ the allowed rate. Steady rate: accepted requests per second over the whole run, or after the server's initial allowance (a fresh window's ${LIMIT.requests}, or the bucket's burst) if that is lower, so that neither a pause early in the run nor a burst of the free allowance can flatter it. A client that uses the whole budget reads 1.00 whether it paces or bursts; the node paces with a 2% margin, so 0.98 is its ceiling. '-': nothing was accepted beyond the initial allowance. With another client on the key it is the key's total.`,
			`HTTP Request set-ups: defaults; Retry On Fail with Max Tries 5 and Wait Between Tries ${RETRY_WAIT_MS} ms (n8n's maximum 5000 ms scaled by the window, ${LIMIT.windowMs / 1000} s instead of 60 s: all retries fall in the same window, as they do against the real 60 s limit); batching ${LIMIT.requests} items every ${LIMIT.windowMs} ms. The key goes in an Authorization header.`,
			'max 429 / window: most 429 answers to the node inside any one window-long interval. Target for our node on every algorithm: rate ÷ allowed ≥ 0.97, max 429 / window ≤ 1, 0 lost, in every run; where the server is stricter than the credential (another client, two n8n processes at 60/min each): 0 lost.',
		],
	};
}
