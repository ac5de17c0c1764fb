/**
 * Section 1: N leads against a server limit of R requests per window, for our node and for
 * n8n's HTTP Request node, on each server algorithm; plus shared-key cases (another client,
 * two executions in one n8n, two n8n processes as in queue mode).
 */
import type { RateLimitAlgorithm } from '../test/emulator';
import { startBenchEmulator, type BenchEmulator } from './lib/emulator';
import { deploy, trigger, type BenchServer, type Deployed } from './lib/n8n';
import type { Section } from './lib/report';
import { fixed, sleep } from './lib/stats';
import {
	chain,
	httpImportNode,
	makeLeads,
	ourCredential,
	ourImportNode,
	type HttpSetup,
} from './lib/workflows';
import { rateOutcome, type Limit, type RateOutcome } from './rateMetrics';

/**
 * 5 requests per 5 s is the service's own rate (60 per minute, the credential's default), in
 * windows 12 times shorter than its 60 s, so a run takes seconds instead of minutes. Shorter
 * windows only make pacing harder: network jitter is a bigger share of a window.
 */
export const LIMIT: Limit = { requests: 5, windowMs: 5_000 };
const ALLOWED_RPM = (LIMIT.requests * 60_000) / LIMIT.windowMs;
const LEADS = 20;
/** HTTP Request's Retry On Fail at its maximum (5 s between tries), scaled like the window. */
const RETRY_WAIT_MS = Math.round((5_000 * LIMIT.windowMs) / 60_000);

type Client = 'ours' | HttpSetup;

export interface RateScenario {
	label: string;
	client: Client;
	algorithm: RateLimitAlgorithm;
	burst?: number;
	leads: number;
	/** Concurrent executions of the workflow in each n8n process. */
	executions?: number;
	/** Separate n8n processes, each with its own credential for the same key (queue mode). */
	processes?: 1 | 2;
	/** The credential's Requests per Minute; default the server's rate. */
	requestsPerMinute?: number;
	/** Share of the key's budget another client spends meanwhile (0 to 1). */
	otherClientShare?: number;
	/** 'pace': ≥ 0.97 of the rate, ≤ 1 429 per window, 0 lost. 'correct': 0 lost. */
	target: 'pace' | 'correct' | 'none';
}

const tokenBucket = (burst: number) => `token-bucket, burst ${burst}`;

export const RATE_SCENARIOS: RateScenario[] = [
	{
		label: 'Lead & Call Access',
		client: 'ours',
		algorithm: 'sliding-log',
		leads: LEADS,
		target: 'pace',
	},
	{
		label: 'Lead & Call Access',
		client: 'ours',
		algorithm: 'fixed-window',
		leads: LEADS,
		target: 'pace',
	},
	{
		label: 'Lead & Call Access',
		client: 'ours',
		algorithm: 'token-bucket',
		burst: 1,
		leads: LEADS,
		target: 'pace',
	},
	{
		label: 'Lead & Call Access',
		client: 'ours',
		algorithm: 'token-bucket',
		burst: LIMIT.requests,
		leads: LEADS,
		target: 'pace',
	},
	{
		label: 'HTTP Request, defaults',
		client: 'defaults',
		algorithm: 'sliding-log',
		leads: LEADS,
		target: 'none',
	},
	{
		label: 'HTTP Request, Retry On Fail max',
		client: 'retry',
		algorithm: 'sliding-log',
		leads: LEADS,
		target: 'none',
	},
	{
		label: 'HTTP Request, batching at the limit',
		client: 'batching',
		algorithm: 'sliding-log',
		leads: LEADS,
		target: 'none',
	},
	{
		label: 'HTTP Request, batching at the limit',
		client: 'batching',
		algorithm: 'token-bucket',
		burst: 1,
		leads: LEADS,
		target: 'none',
	},
	{
		label: 'Lead & Call Access, another client spends half the key',
		client: 'ours',
		algorithm: 'sliding-log',
		leads: LEADS / 2,
		otherClientShare: 0.5,
		target: 'correct',
	},
	{
		label: 'Lead & Call Access, 2 executions at once, one n8n',
		client: 'ours',
		algorithm: 'sliding-log',
		leads: LEADS,
		executions: 2,
		target: 'pace',
	},
];

/** Queue mode: needs two n8n processes, so it runs once both exist. */
export const QUEUE_SCENARIOS: RateScenario[] = [
	{
		label: 'Lead & Call Access, 2 n8n processes, 60/min each',
		client: 'ours',
		algorithm: 'sliding-log',
		leads: LEADS,
		processes: 2,
		target: 'correct',
	},
	{
		label: 'Lead & Call Access, 2 n8n processes, 30/min each',
		client: 'ours',
		algorithm: 'sliding-log',
		leads: LEADS,
		processes: 2,
		requestsPerMinute: ALLOWED_RPM / 2,
		target: 'pace',
	},
];

export interface RateResult {
	scenario: RateScenario;
	imported: number;
	lost: number;
	outcome: RateOutcome;
	otherClient?: { sent: number; accepted: number; rateLimited: number };
	wallMs: number;
	executionsFailed: number;
	executions: number;
}

/** Another workflow on the same key: evenly spaced GET /v1/calls, whatever the answers. */
function startOtherClient(bench: BenchEmulator, share: number): { stop(): Promise<void> } {
	const everyMs = LIMIT.windowMs / (LIMIT.requests * share);
	let stopped = false;
	const done = (async () => {
		// Bounded even if stop() were never called.
		for (let sent = 0; !stopped && sent < 1_000; sent++) {
			const startedAt = Date.now();
			try {
				const response = await fetch(`${bench.emulator.baseUrl}/v1/calls?limit=1`, {
					headers: { Authorization: `Bearer ${bench.apiKey}` },
				});
				await response.arrayBuffer();
			} catch {
				// counted by the emulator either way
			}
			while (!stopped && Date.now() < startedAt + everyMs) await sleep(20);
		}
	})();
	return {
		stop: async () => {
			stopped = true;
			await done;
		},
	};
}

async function deployClient(
	scenario: RateScenario,
	server: BenchServer,
	bench: BenchEmulator,
	id: string,
): Promise<Deployed> {
	if (scenario.client === 'ours') {
		const credential = ourCredential(
			id,
			bench.emulator.baseUrl,
			bench.apiKey,
			scenario.requestsPerMinute ?? ALLOWED_RPM,
		);
		const built = chain(id, [ourImportNode(credential)], { splitLeads: true, saveSuccess: false });
		return await deploy(server, built.workflow, built.hookPath, [credential]);
	}
	const node = httpImportNode(bench.emulator.baseUrl, bench.apiKey, scenario.client, {
		...LIMIT,
		retryWaitMs: RETRY_WAIT_MS,
	});
	const built = chain(id, [node], { splitLeads: true, saveSuccess: false });
	return await deploy(server, built.workflow, built.hookPath);
}

let scenarioCounter = 0;

export async function runRateScenario(
	scenario: RateScenario,
	servers: BenchServer[],
): Promise<RateResult> {
	const used = servers.slice(0, scenario.processes ?? 1);
	const bench = await startBenchEmulator({
		rateLimit: {
			limit: LIMIT.requests,
			windowMs: LIMIT.windowMs,
			algorithm: scenario.algorithm,
			burst: scenario.burst,
		},
		recordRequests: true,
	});
	try {
		const id = `rate-${++scenarioCounter}`;
		const deployed = await Promise.all(
			used.map((server) => deployClient(scenario, server, bench, `${id}-${server.name}`)),
		);
		// Limiter state and log start from zero right before the run.
		bench.emulator.reset();
		const other =
			scenario.otherClientShare === undefined
				? undefined
				: startOtherClient(bench, scenario.otherClientShare);
		const perProcess = scenario.executions ?? 1;
		const parts = used.length * perProcess;
		const perRun = scenario.leads / parts;
		const runs = used.flatMap((server, p) =>
			Array.from({ length: perProcess }, (_, e) =>
				trigger(server, deployed[p], {
					leads: makeLeads(perRun, (p * perProcess + e) * perRun),
				}),
			),
		);
		const results = await Promise.all(runs);
		await other?.stop();

		const requests = bench.emulator.requests;
		const imported = bench.emulator.leads.size;
		const otherRequests = requests.filter((r) => r.path === '/v1/calls');
		return {
			scenario,
			imported,
			lost: scenario.leads - imported,
			outcome: rateOutcome(requests, LIMIT),
			otherClient: other && {
				sent: otherRequests.length,
				accepted: otherRequests.filter((r) => r.status === 200).length,
				rateLimited: otherRequests.filter((r) => r.status === 429).length,
			},
			wallMs: Math.max(...results.map((r) => r.wallMs)),
			executionsFailed: results.filter((r) => r.status !== 200).length,
			executions: results.length,
		};
	} finally {
		await bench.stop();
	}
}

export function meetsTarget(result: RateResult): boolean | undefined {
	const { target } = result.scenario;
	if (target === 'none') return undefined;
	if (result.lost !== 0 || result.executionsFailed !== 0) return false;
	if (target === 'correct') return true;
	return result.outcome.rateRatio >= 0.97 && result.outcome.max429PerWindow <= 1;
}

function serverLabel(scenario: RateScenario): string {
	return scenario.algorithm === 'token-bucket'
		? tokenBucket(scenario.burst ?? LIMIT.requests)
		: scenario.algorithm;
}

export function rateSection(results: RateResult[]): Section {
	return {
		title: `1. ${LEADS} leads at ${LIMIT.requests} requests per ${LIMIT.windowMs / 1000} s (${ALLOWED_RPM}/min)`,
		columns: [
			'client',
			'server algorithm',
			'imported',
			'lost',
			'requests',
			'429s',
			'max 429 / window',
			'rate ÷ allowed',
			'wall s',
			'target',
		],
		rows: results.map((r) => {
			const verdict = meetsTarget(r);
			const failed =
				r.executionsFailed > 0 ? ` (${r.executionsFailed}/${r.executions} executions failed)` : '';
			const other = r.otherClient
				? ` + other client ${r.otherClient.accepted} ok / ${r.otherClient.rateLimited} × 429`
				: '';
			return [
				r.scenario.label,
				serverLabel(r.scenario),
				`${r.imported}/${r.scenario.leads}${failed}`,
				String(r.lost),
				`${r.outcome.sent}${other}`,
				String(r.outcome.rateLimited),
				String(r.outcome.max429PerWindow),
				fixed(r.outcome.rateRatio),
				fixed(r.wallMs / 1000, 1),
				verdict === undefined ? '-' : verdict ? 'met' : 'NOT met',
			];
		}),
		notes: [
			`Credential Requests per Minute = ${ALLOWED_RPM} (the server's rate) unless the row says otherwise.`,
			'rate ÷ allowed: accepted requests on the key ÷ the time their budget was held (from the first until one window after the R-th from last) ÷ R per window. It is 1.0 for a client that uses the whole budget, whether it paces or bursts; the node paces with a 2% margin, so 0.98 is its ceiling. For rows that lost leads it describes only the requests that got through.',
			`HTTP Request set-ups: defaults; Retry On Fail with Max Tries 5 and Wait Between Tries ${RETRY_WAIT_MS} ms (n8n's maximum 5000 ms scaled by the window, ${LIMIT.windowMs / 1000} s instead of 60 s: all retries fall in the same window, as they do against the real 60 s limit); batching ${LIMIT.requests} items every ${LIMIT.windowMs} ms. The key goes in an Authorization header.`,
			'max 429 / window: most 429 answers to the node inside any one window-long interval. Target for our node on every algorithm: rate ÷ allowed ≥ 0.97, max 429 / window ≤ 1, 0 lost; where the server is stricter than the credential (another client, queue mode at 60/min each): 0 lost.',
		],
	};
}
