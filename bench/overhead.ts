/**
 * Section 2: the node's own cost. 10 000 lead imports against an unlimited emulator, pacing
 * off, by our node and by n8n's HTTP Request node doing the same job. The CPU time of the n8n
 * process (all threads, from /proc) is measured around each run; both runs pay the same
 * webhook, Split Out, expression and HTTP work, so their difference is what our node adds.
 */
import { startBenchEmulator } from './lib/emulator';
import { waitUntilIdle } from './lib/idle';
import { deploy, trigger, type BenchServer, type Deployed } from './lib/n8n';
import { cpuMs } from './lib/proc';
import type { Section } from './lib/report';
import { fixed, median, medianRange } from './lib/stats';
import { chain, httpImportNode, makeLeads, ourCredential, ourImportNode } from './lib/workflows';

const ITEMS = 10_000;
const REPEATS = 3;
const WARM_UP_ITEMS = 500;
/** Target: what our node may add on top of the HTTP work, per item. */
const MAX_EXTRA_CPU_MS_PER_ITEM = 0.5;

type Client = 'ours' | 'http';

export interface OverheadRun {
	client: Client;
	cpuMs: number;
	wallMs: number;
}

export interface OverheadResult {
	runs: OverheadRun[];
}

async function measure(
	server: BenchServer,
	deployed: Deployed,
	items: number,
	check: () => void,
): Promise<{ cpuMs: number; wallMs: number }> {
	await waitUntilIdle(server.pid);
	const before = cpuMs(server.pid);
	const result = await trigger(server, deployed, { leads: makeLeads(items) });
	if (result.status !== 200) {
		throw new Error(`overhead run failed: HTTP ${result.status} ${JSON.stringify(result.body)}`);
	}
	await waitUntilIdle(server.pid);
	const cpu = cpuMs(server.pid) - before;
	check();
	return { cpuMs: cpu, wallMs: result.wallMs };
}

export async function runOverhead(server: BenchServer): Promise<OverheadResult> {
	const bench = await startBenchEmulator({ rateLimit: false, recordRequests: false });
	try {
		const credential = ourCredential('overhead', bench.emulator.baseUrl, bench.apiKey, 0);
		const ours = chain('overhead ours', [ourImportNode(credential)], {
			splitLeads: true,
			saveSuccess: false,
		});
		const http = chain(
			'overhead http',
			[httpImportNode(bench.emulator.baseUrl, bench.apiKey, 'defaults')],
			{ splitLeads: true, saveSuccess: false },
		);
		const deployed: Record<Client, Deployed> = {
			ours: await deploy(server, ours.workflow, ours.hookPath, [credential]),
			http: await deploy(server, http.workflow, http.hookPath),
		};
		const expectImported = (items: number) => () => {
			const stats = bench.emulator.stats();
			if (stats.leads !== items || stats.byStatus['201'] !== items) {
				throw new Error(`expected ${items} imports, the emulator saw ${JSON.stringify(stats)}`);
			}
		};

		// Warm-up: the first runs load code and fill V8's caches; they are not measured.
		for (const client of ['ours', 'http'] as const) {
			bench.emulator.reset();
			await measure(server, deployed[client], WARM_UP_ITEMS, expectImported(WARM_UP_ITEMS));
		}
		const runs: OverheadRun[] = [];
		for (let repeat = 0; repeat < REPEATS; repeat++) {
			// Alternate the order so a drift of the machine does not favour one client.
			const order: Client[] = repeat % 2 === 0 ? ['ours', 'http'] : ['http', 'ours'];
			for (const client of order) {
				bench.emulator.reset();
				const measured = await measure(server, deployed[client], ITEMS, expectImported(ITEMS));
				runs.push({ client, ...measured });
			}
		}
		return { runs };
	} finally {
		await bench.stop();
	}
}

export interface OverheadVerdict {
	extraCpuMsPerItem: number;
	wallRatio: number;
	cpuMet: boolean;
	wallMet: boolean;
}

export function overheadVerdict(result: OverheadResult): OverheadVerdict {
	const of = (client: Client) => result.runs.filter((run) => run.client === client);
	const cpuPerItem = (client: Client) => median(of(client).map((run) => run.cpuMs / ITEMS));
	const wall = (client: Client) => median(of(client).map((run) => run.wallMs));
	const extraCpuMsPerItem = cpuPerItem('ours') - cpuPerItem('http');
	const wallRatio = wall('ours') / wall('http');
	return {
		extraCpuMsPerItem,
		wallRatio,
		cpuMet: extraCpuMsPerItem <= MAX_EXTRA_CPU_MS_PER_ITEM,
		wallMet: wallRatio <= 1,
	};
}

export function overheadSection(result: OverheadResult): Section {
	const verdict = overheadVerdict(result);
	const row = (client: Client, label: string) => {
		const runs = result.runs.filter((run) => run.client === client);
		const cpu = runs.map((run) => run.cpuMs / ITEMS);
		const wall = runs.map((run) => run.wallMs / 1000);
		return [label, medianRange(cpu, 3), medianRange(wall, 2), fixed(ITEMS / median(wall), 0)];
	};
	return {
		title: `2. Overhead: ${ITEMS.toLocaleString('en')} imports, no rate limit (median of ${REPEATS}, range in brackets)`,
		columns: ['client', 'n8n CPU ms / item', 'wall s', 'items / s'],
		rows: [
			row('ours', 'Lead & Call Access (pacing off)'),
			row('http', 'HTTP Request, defaults'),
			[
				'ours − HTTP Request',
				`${verdict.extraCpuMsPerItem >= 0 ? '+' : ''}${fixed(verdict.extraCpuMsPerItem, 3)} (target ≤ +${MAX_EXTRA_CPU_MS_PER_ITEM}: ${verdict.cpuMet ? 'met' : 'NOT met'})`,
				`ratio ${fixed(verdict.wallRatio, 2)} (target ≤ 1.00: ${verdict.wallMet ? 'met' : 'NOT met'})`,
				'',
			],
		],
		notes: [
			'n8n CPU: user + system time of the `n8n start` process (all its threads) from /proc/<pid>/stat, from before the webhook call until n8n is idle again after answering it. Both workflows are Webhook → Split Out → import, so the difference is the cost of the node itself above the HTTP work.',
			'The HTTP Request node sends every item at once; ours runs 8 items at a time (enough to keep the loopback round trips overlapped). Successful executions are not saved, so database writes do not blur the comparison.',
		],
	};
}
