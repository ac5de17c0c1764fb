/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Section 1: N leads against a server limit of R requests per window, for our node and for
 * n8n's HTTP Request node, on each server algorithm; plus shared-key cases (another client,
 * two executions in one n8n, two n8n processes as in queue mode). What a run achieved is computed
 * from the emulator's request log (arrival times and answers): the server's view, not the client's.
 */
import type { RecordedRequest } from '../devkit/emulator';
import { leads } from '../devkit/workflows';
import { deploy, trigger, withEmulator, type BenchEmulator, type BenchServer } from './lib/n8n';
import { fixed, sleep } from './lib/stats';
import { chain, httpImportNode, ourImportChain, type BuiltWorkflow } from './lib/workflows';
import {
	ALLOWED_RPM,
	fastestMs,
	initialAllowance,
	LIMIT,
	RETRY_WAIT_MS,
	type RateScenario,
} from './rateScenarios';

export type RateResult = Awaited<ReturnType<typeof runRateScenario>>;

/** The largest number of timestamps inside any interval of `windowMs`. */
export function maxInAnyWindow(times: number[], windowMs: number): number {
	const sorted = [...times].sort((a, b) => a - b);
	let best = 0;
	let start = 0;
	for (let end = 0; end < sorted.length; end++) {
		while (sorted[end] - sorted[start] >= windowMs) start++;
		best = Math.max(best, end - start + 1);
	}
	return best;
}

/** Requests per second from the first to the last of `times` ÷ the allowed rate. */
const perAllowed = (times: number[]) =>
	((times.length - 1) / (times[times.length - 1] - times[0])) * (LIMIT.windowMs / LIMIT.requests);

const accepted = (r: RecordedRequest) =>
	typeof r.status === 'number' && r.status >= 200 && r.status < 300;

function rateOutcome(requests: RecordedRequest[], scenario: RateScenario) {
	const leadRequests = requests.filter((r) => r.method === 'POST' && r.path === '/v1/leads');
	const limitedAt = leadRequests.filter((r) => r.status === 429).map((r) => r.at);
	const acceptedAt = requests.filter(accepted).map((r) => r.at);
	const leadsAcceptedAt = leadRequests.filter(accepted).map((r) => r.at);
	const after429 = leadsAcceptedAt.filter((at) => at > (limitedAt[0] ?? Infinity));
	/*
	 * Steady rate: over the whole run, or after the server's initial allowance (a fresh window's
	 * R requests, or a token bucket's burst) if that is lower. The whole run alone credits a
	 * client that bursts the allowance at once with a free window (it reads 1.9 for batching on
	 * a short run); the part after the allowance alone would hide a pause early in the run.
	 */
	const allowance = initialAllowance(scenario);
	const times = acceptedAt.sort((a, b) => a - b);
	return {
		/** POST /v1/leads requests the client(s) under test sent, and the 429 answers to them. */
		sent: leadRequests.length,
		rateLimited: limitedAt.length,
		/** Most 429 answers to the client(s) within any one window-long interval. */
		max429PerWindow: maxInAnyWindow(limitedAt, LIMIT.windowMs),
		/** Steady rate of accepted requests on the key (any client) ÷ the allowed rate. */
		rateRatio:
			times.length <= allowance || times.length < 2
				? Number.NaN
				: Math.min(perAllowed(times), perAllowed(times.slice(allowance - 1))),
		/** First lead request to last accepted one ÷ the fastest the server allows. */
		timeRatio: (Math.max(...leadsAcceptedAt) - leadRequests[0]?.at) / fastestMs(scenario),
		/** Rate of accepted lead requests after the first 429 ÷ the allowed rate (NaN: no 429). */
		rateAfter429: after429.length < 2 ? Number.NaN : perAllowed(after429),
	};
}

/** Another workflow on the same key: evenly spaced GET /v1/calls, whatever the answers. */
function startOtherClient(bench: BenchEmulator, share: number): { stop(): Promise<void> } {
	const everyMs = LIMIT.windowMs / (LIMIT.requests * share);
	const url = `${bench.emulator.baseUrl}/v1/calls?limit=1`;
	const headers = { Authorization: `Bearer ${bench.apiKey}` };
	let stopped = false;
	const done = (async () => {
		// Bounded even if stop() were never called.
		for (let sent = 0; !stopped && sent < 1_000; sent++) {
			const next = Date.now() + everyMs;
			// Counted by the emulator whatever the answer.
			const answer = fetch(url, { headers }).then((response) => response.arrayBuffer());
			await answer.catch(() => undefined);
			while (!stopped && Date.now() < next) await sleep(20);
		}
	})();
	return {
		stop: async () => {
			stopped = true;
			await done;
		},
	};
}

function clientWorkflow(scenario: RateScenario, bench: BenchEmulator, id: string): BuiltWorkflow {
	const { baseUrl } = bench.emulator;
	if (scenario.client === 'ours') {
		const requestsPerMinute = scenario.credentialRpm ?? ALLOWED_RPM;
		const budget = { requestsPerMinute, windowMs: LIMIT.windowMs };
		return ourImportChain(id, bench, budget, { saveSuccess: false });
	}
	const limit = { ...LIMIT, retryWaitMs: RETRY_WAIT_MS };
	const node = httpImportNode(baseUrl, bench.apiKey, scenario.client, limit);
	return chain(id, [node], { splitLeads: true, saveSuccess: false });
}

let scenarioCounter = 0;

async function runRateScenario(scenario: RateScenario, servers: BenchServer[]) {
	const used = servers.slice(0, scenario.processes ?? 1);
	const { algorithm, burst, headers } = scenario;
	const rateLimit = { limit: LIMIT.requests, windowMs: LIMIT.windowMs, algorithm, burst, headers };
	return await withEmulator({ rateLimit, recordRequests: true }, async (bench) => {
		let other: { stop(): Promise<void> } | undefined;
		try {
			const id = `rate-${++scenarioCounter}`;
			const deployed = await Promise.all(
				used.map((server) =>
					deploy(server, clientWorkflow(scenario, bench, `${id}-${server.name}`)),
				),
			);
			// Limiter state and log start from zero right before the run.
			bench.emulator.reset();
			if (scenario.otherClientShare !== undefined) {
				other = startOtherClient(bench, scenario.otherClientShare);
			}
			const perProcess = scenario.executions ?? 1;
			const perRun = scenario.leads / (used.length * perProcess);
			const runs = used.flatMap((server, p) =>
				Array.from({ length: perProcess }, (_, e) =>
					trigger(server, deployed[p], { items: leads(perRun, (p * perProcess + e) * perRun) }),
				),
			);
			const results = await Promise.all(runs);
			await other?.stop();

			const requests = bench.emulator.requests;
			if (process.env.BENCH_DEBUG) {
				// Arrival gaps in ms, * = 429: shows where the spacing broke.
				const gaps = requests.map(
					(r, i) => `${i === 0 ? 0 : r.at - requests[i - 1].at}${r.status === 429 ? '*' : ''}`,
				);
				console.error(`  arrival gaps: ${gaps.join(' ')}`);
			}
			const imported = bench.emulator.leads.size;
			const otherRequests = requests.filter((r) => r.path === '/v1/calls');
			return {
				scenario,
				imported,
				lost: scenario.leads - imported,
				outcome: rateOutcome(requests, scenario),
				otherClient: other && {
					accepted: otherRequests.filter((r) => r.status === 200).length,
					rateLimited: otherRequests.filter((r) => r.status === 429).length,
				},
				wallMs: Math.max(...results.map((r) => r.wallMs)),
				executionsFailed: results.filter((r) => r.status !== 200).length,
				executions: results.length,
			};
		} finally {
			// Also on failure: the other client must not outlive its emulator.
			await other?.stop();
		}
	});
}

export async function runRateScenarios(
	scenarios: RateScenario[],
	servers: BenchServer[],
	log: (message: string) => void,
): Promise<RateResult[]> {
	const results: RateResult[] = [];
	for (const scenario of scenarios) {
		for (let repeat = 0; repeat < (scenario.repeats ?? 1); repeat++) {
			const burst = scenario.burst ? ` burst ${scenario.burst}` : '';
			log(`rate: ${scenario.label} on ${scenario.algorithm}${burst}`);
			const result = await runRateScenario(scenario, servers);
			log(
				`  imported ${result.imported}/${scenario.leads}, 429s ${result.outcome.rateLimited}, rate ÷ allowed ${fixed(result.outcome.rateRatio, 3)}`,
			);
			results.push(result);
		}
	}
	return results;
}
