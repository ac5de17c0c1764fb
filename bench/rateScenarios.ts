/** The rate-limit rows: the server's limit, and which client runs against it how. */
import { RATE_LIMIT_HEADER_STYLES } from '../devkit/emulator';
import type { RateLimitAlgorithm, RateLimitHeaderStyle } from '../devkit/emulator';
import type { HttpSetup } from './lib/workflows';

/**
 * 10 requests per 10 s is the service's own rate (60 per minute, the credential's default), in
 * windows 6 times shorter than its 60 s, so a run takes seconds instead of minutes: the
 * credential's hidden Rate Window Seconds is 10 to match. Shorter windows only make pacing
 * harder: network jitter is a bigger share of a window. 25 leads = 2.5 windows' worth, the
 * shape of the report in issue 11 (75 leads at 30 per minute).
 */
export const LIMIT = { requests: 10, windowMs: 10_000 };
export const ALLOWED_RPM = (LIMIT.requests * 60_000) / LIMIT.windowMs;
export const LEADS = 25;
/** HTTP Request's Retry On Fail at its maximum (5 s between tries), scaled like the window. */
export const RETRY_WAIT_MS = Math.round((5_000 * LIMIT.windowMs) / 60_000);

export interface RateScenario {
	label: string;
	client: 'ours' | HttpSetup;
	algorithm: RateLimitAlgorithm;
	burst?: number;
	/** The rate-limit headers the server states the key's budget in (none: no headers). */
	headers?: RateLimitHeaderStyle;
	/** The credential's Requests per Minute, when not the server's rate. */
	credentialRpm?: number;
	leads: number;
	/** Concurrent executions of the workflow in each n8n process. */
	executions?: number;
	/** Separate n8n processes, each with its own credential for the same key (queue mode). */
	processes?: 1 | 2;
	/** Share of the key's budget another client spends meanwhile (0 to 1). */
	otherClientShare?: number;
	/**
	 * 'fastest': time ÷ fastest ≤ 1.05 and 0 × 429 (window servers told the true budget).
	 * 'learn': ≤ 1 × 429, then ≥ 0.95 of the rate (token bucket without burst). 'stated': ≤ 1 × 429
	 * and time ÷ fastest ≤ 1 ÷ 0.95 (a credential above the limit the server states). 'correct':
	 * 0 lost.
	 */
	target: 'fastest' | 'learn' | 'stated' | 'correct' | 'none';
	/** Runs of the row (each with a fresh key); the row reports their median and worst case. */
	repeats?: number;
}

const OURS = 'Lead & Call Access';
const TWICE = `${OURS}, credential says twice the limit`;

function row(
	label: string,
	client: RateScenario['client'],
	algorithm: RateLimitAlgorithm,
	target: RateScenario['target'],
	more: Partial<RateScenario> = {},
): RateScenario {
	return { label, client, algorithm, target, leads: LEADS, ...more };
}

/** Our node on each algorithm runs 3 times: one late request can cost a 429 on a strict server. */
const ours = (algorithm: RateLimitAlgorithm, target: RateScenario['target'], more = {}) =>
	row(OURS, 'ours', algorithm, target, { repeats: 3, ...more });
const http = (label: string, client: HttpSetup, more: Partial<RateScenario> = {}) =>
	row(`HTTP Request, ${label}`, client, 'sliding-log', 'none', more);

export const RATE_SCENARIOS: RateScenario[] = [
	ours('sliding-log', 'fastest'),
	ours('fixed-window', 'fastest'),
	ours('token-bucket', 'learn', { burst: 1 }),
	ours('token-bucket', 'correct', { burst: LIMIT.requests }),
	ours('token-bucket', 'fastest', { burst: LIMIT.requests, headers: 'ietf' }),
	ours('sliding-log', 'stated', {
		label: TWICE,
		headers: 'x-ratelimit-epoch',
		credentialRpm: 2 * ALLOWED_RPM,
	}),
	http('defaults', 'defaults'),
	http('Retry On Fail max', 'retry'),
	http('batching at the limit', 'batching'),
	http('batching at the limit', 'batching', { algorithm: 'token-bucket', burst: 1 }),
	row(`${OURS}, another client spends half the key`, 'ours', 'sliding-log', 'correct', {
		otherClientShare: 0.5,
	}),
	// Even, so the two executions get the same number of leads.
	row(`${OURS}, 2 executions at once, one n8n`, 'ours', 'sliding-log', 'fastest', {
		leads: 2 * LIMIT.requests,
		executions: 2,
	}),
];

/**
 * Issue 35's single-process matrix (`BENCH_RATE_MATRIX=1`): every server shape, without headers
 * and with each header family, and a credential at twice the key's limit; once each. Target: at
 * least 0.95 of the fastest time the server allows, at most 1 × 429 ('stated').
 */
export const RATE_MATRIX: RateScenario[] = [undefined, ...RATE_LIMIT_HEADER_STYLES].flatMap(
	(headers) => [
		row(OURS, 'ours', 'sliding-log', 'stated', { headers }),
		row(OURS, 'ours', 'fixed-window', 'stated', { headers }),
		row(OURS, 'ours', 'token-bucket', 'stated', { burst: 1, headers }),
		row(OURS, 'ours', 'token-bucket', 'stated', { burst: LIMIT.requests, headers }),
		row(TWICE, 'ours', 'sliding-log', 'stated', { headers, credentialRpm: 2 * ALLOWED_RPM }),
	],
);

/** Queue mode: needs two n8n processes, so it runs once both exist. */
export const QUEUE_SCENARIOS: RateScenario[] = [
	row(`${OURS}, 2 n8n processes, 60/min each`, 'ours', 'sliding-log', 'correct', { processes: 2 }),
];

/**
 * The least time from the first request to the last accepted one that the server allows for
 * the scenario's leads (as if the key were the node's alone): whole windows on window servers,
 * (N - burst) ÷ rate on a token bucket.
 */
export function fastestMs(scenario: RateScenario): number {
	const { leads, algorithm } = scenario;
	if (algorithm !== 'token-bucket') return (Math.ceil(leads / LIMIT.requests) - 1) * LIMIT.windowMs;
	return (Math.max(0, leads - initialAllowance(scenario)) * LIMIT.windowMs) / LIMIT.requests;
}

/** Requests a fresh server accepts at once: a window's worth, or the bucket's burst. */
export function initialAllowance({ algorithm, burst }: RateScenario): number {
	return algorithm === 'token-bucket' ? (burst ?? LIMIT.requests) : LIMIT.requests;
}

export function serverLabel(scenario: RateScenario): string {
	const server =
		scenario.algorithm === 'token-bucket'
			? `token-bucket, burst ${initialAllowance(scenario)}`
			: scenario.algorithm;
	return scenario.headers ? `${server}, headers ${scenario.headers}` : server;
}
