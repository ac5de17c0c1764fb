/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Section 1: N leads against a server limit of R requests per window, for our node and for
 * n8n's HTTP Request node, on each server algorithm; plus shared-key cases (another client,
 * two executions in one n8n, two n8n processes as in queue mode).
 */
import { startBenchEmulator, type BenchEmulator } from './lib/emulator';
import { deploy, trigger, type BenchServer, type Deployed } from './lib/n8n';
import { sleep } from './lib/stats';
import { leads } from '../devkit/workflows';
import { chain, httpImportNode, ourImportChain } from './lib/workflows';
import { rateOutcome, type RateOutcome } from './rateMetrics';
import {
	ALLOWED_RPM,
	fastestMs,
	initialAllowance,
	LIMIT,
	RETRY_WAIT_MS,
	type RateScenario,
} from './rateScenarios';

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
		const built = ourImportChain(
			id,
			{
				baseUrl: bench.emulator.baseUrl,
				apiKey: bench.apiKey,
				requestsPerMinute: scenario.credentialRpm ?? ALLOWED_RPM,
				windowSeconds: LIMIT.windowMs / 1000,
			},
			{ saveSuccess: false },
		);
		return await deploy(server, built.workflow, built.hookPath, [built.credential]);
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
			headers: scenario.headers,
		},
		recordRequests: true,
	});
	let other: { stop(): Promise<void> } | undefined;
	try {
		const id = `rate-${++scenarioCounter}`;
		const deployed = await Promise.all(
			used.map((server) => deployClient(scenario, server, bench, `${id}-${server.name}`)),
		);
		// Limiter state and log start from zero right before the run.
		bench.emulator.reset();
		if (scenario.otherClientShare !== undefined) {
			other = startOtherClient(bench, scenario.otherClientShare);
		}
		const perProcess = scenario.executions ?? 1;
		const parts = used.length * perProcess;
		const perRun = scenario.leads / parts;
		const runs = used.flatMap((server, p) =>
			Array.from({ length: perProcess }, (_, e) =>
				trigger(server, deployed[p], {
					items: leads(perRun, (p * perProcess + e) * perRun),
				}),
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
			outcome: rateOutcome(requests, LIMIT, initialAllowance(scenario), fastestMs(scenario)),
			otherClient:
				scenario.otherClientShare === undefined
					? undefined
					: {
							sent: otherRequests.length,
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
		await bench.stop();
	}
}
