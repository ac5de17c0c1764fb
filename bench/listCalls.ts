/**
 * Section 3: List Calls with Return All over 50 000 calls: wall time, peak memory of the n8n
 * process, and pages fetched against the minimum (100 calls per page, the emulator's maximum).
 */
import { startBenchEmulator } from './lib/emulator';
import { withPeakRss } from './lib/memory';
import { deploy, trigger, type BenchServer } from './lib/n8n';
import type { Section } from './lib/report';
import { fixed, median, medianRange } from './lib/stats';
import { chain, countUniqueIdsNode, listCallsNode, ourCredential } from './lib/workflows';

const CALLS = 50_000;
const MAX_PAGE_SIZE = 100;
const MIN_PAGES = Math.ceil(CALLS / MAX_PAGE_SIZE);
const REPEATS = 3;

export interface ListCallsRun {
	wallMs: number;
	baselineMb: number;
	peakMb: number;
	pages: number;
	uniqueCalls: number;
}

export async function runListCalls(server: BenchServer): Promise<ListCallsRun[]> {
	const bench = await startBenchEmulator({
		rateLimit: false,
		recordRequests: false,
		seedCalls: CALLS,
		maxPageSize: MAX_PAGE_SIZE,
	});
	try {
		const credential = ourCredential('list-calls', bench.emulator.baseUrl, bench.apiKey, 0);
		const all = chain('list all calls', [listCallsNode(credential, true), countUniqueIdsNode()], {
			saveSuccess: false,
		});
		const onePage = chain(
			'list one page',
			[listCallsNode(credential, false), countUniqueIdsNode()],
			{
				saveSuccess: false,
			},
		);
		const deployedAll = await deploy(server, all.workflow, all.hookPath, [credential]);
		const deployedOnePage = await deploy(server, onePage.workflow, onePage.hookPath);
		// Warm-up: loads the node's code paths without growing the heap by 50 000 items.
		await trigger(server, deployedOnePage, {});

		const runs: ListCallsRun[] = [];
		for (let repeat = 0; repeat < REPEATS; repeat++) {
			bench.emulator.reset();
			const measured = await withPeakRss(server.pid, () => trigger(server, deployedAll, {}));
			const { status, body, wallMs } = measured.value;
			const uniqueCalls = Number((body as { unique_count_id?: unknown }).unique_count_id);
			if (status !== 200 || uniqueCalls !== CALLS) {
				throw new Error(`list calls failed: HTTP ${status} ${JSON.stringify(body)}`);
			}
			runs.push({
				wallMs,
				baselineMb: measured.baselineMb,
				peakMb: measured.peakMb,
				pages: bench.emulator.stats().requests,
				uniqueCalls,
			});
		}
		return runs;
	} finally {
		await bench.stop();
	}
}

export function listCallsSection(runs: ListCallsRun[]): Section {
	const pages = runs.map((run) => run.pages);
	const pagesMet = pages.every((count) => count === MIN_PAGES);
	return {
		title: `3. List Calls, Return All, ${CALLS.toLocaleString('en')} calls (median of ${REPEATS}, range in brackets)`,
		columns: [
			'wall s',
			'calls / s',
			'n8n peak RSS MB',
			'peak above baseline MB',
			'pages fetched',
			'minimum pages',
			'distinct calls out',
		],
		rows: [
			[
				medianRange(runs.map((run) => run.wallMs / 1000)),
				fixed(CALLS / median(runs.map((run) => run.wallMs / 1000)), 0),
				medianRange(
					runs.map((run) => run.peakMb),
					0,
				),
				medianRange(
					runs.map((run) => run.peakMb - run.baselineMb),
					0,
				),
				`${[...new Set(pages)].join(', ')} (${pagesMet ? 'minimum: met' : 'NOT the minimum'})`,
				String(MIN_PAGES),
				[...new Set(runs.map((run) => run.uniqueCalls))].join(', '),
			],
		],
		notes: [
			'Pacing off (Requests per Minute 0) and no server limit: at 60/min the 500 pages would take 8 minutes by design. The emulator serves at most 100 calls per page.',
			'The output items (50 000 calls) stay in n8n’s memory for the rest of the execution, as for any node; a Summarize node counts distinct ids so the webhook answers with one item. Successful executions are not saved.',
		],
	};
}
