/**
 * Section 3: List Calls with Return All over 50 000 calls: wall time, peak memory of the n8n
 * process, and pages fetched against the minimum (100 calls per page, the emulator's maximum).
 */
import { ourNode, parameters } from '../devkit/workflows';
import { deploy, failed, memoryRuns, trigger, withEmulator, type BenchServer } from './lib/n8n';
import type { Section } from './lib/report';
import { distinct, fixed, median, medianRange } from './lib/stats';
import { chain, ourCredential } from './lib/workflows';

const CALLS = 50_000;
const MAX_PAGE_SIZE = 100;
const MIN_PAGES = Math.ceil(CALLS / MAX_PAGE_SIZE);
const EMULATOR = { rateLimit: false as const, seedCalls: CALLS, maxPageSize: MAX_PAGE_SIZE };

export type ListCallsRun = Awaited<ReturnType<typeof runListCalls>>[number];

/** Counts distinct call ids, so the webhook answers with one small item, not 50 000. */
const COUNT_UNIQUE_IDS = {
	name: 'Count',
	type: 'n8n-nodes-base.summarize',
	typeVersion: 1.1,
	position: [400, 0] as [number, number],
	parameters: {
		fieldsToSummarize: { values: [{ aggregation: 'countUnique', field: 'id' }] },
		options: {},
	},
};

export async function runListCalls(server: BenchServer) {
	return await withEmulator({ ...EMULATOR, recordRequests: false }, async (bench) => {
		const credential = ourCredential('list-calls', bench, 0);
		// List Calls at the API's largest page (every page, or one), then the count.
		const deployList = (name: string, returnAll: boolean) => {
			const node = ourNode({
				name: 'List Calls',
				parameters: parameters.listCalls(returnAll, MAX_PAGE_SIZE),
				credential,
			});
			const options = { saveSuccess: false, credential };
			return deploy(server, chain(name, [node, COUNT_UNIQUE_IDS], options));
		};
		const all = await deployList('list all calls', true);
		// Warm-up: loads the node's code paths without growing the heap by 50 000 items.
		await trigger(server, await deployList('list one page', false), {});

		bench.emulator.reset();
		return await memoryRuns(server, all, (answer) => {
			const uniqueCalls = Number((answer.body as { unique_count_id?: unknown }).unique_count_id);
			if (answer.status !== 200 || uniqueCalls !== CALLS) throw failed('list calls', answer);
			const pages = bench.emulator.stats().requests;
			bench.emulator.reset();
			return { pages, uniqueCalls };
		});
	});
}

export function listCallsSection(runs: ListCallsRun[]): Section {
	const pages = runs.map((run) => run.pages);
	const pagesMet = pages.every((count) => count === MIN_PAGES);
	const wallS = runs.map((run) => run.wallMs / 1000);
	const peaks = runs.map((run) => run.peakMb);
	const aboveBaseline = runs.map((run) => run.peakMb - run.baselineMb);
	return {
		title: `3. List Calls, Return All, ${CALLS.toLocaleString('en')} calls (median of 3, range in brackets)`,
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
				medianRange(wallS),
				fixed(CALLS / median(wallS), 0),
				medianRange(peaks, 0),
				medianRange(aboveBaseline, 0),
				`${distinct(pages)} (${pagesMet ? 'minimum: met' : 'NOT the minimum'})`,
				String(MIN_PAGES),
				distinct(runs.map((run) => run.uniqueCalls)),
			],
		],
		notes: [
			'Pacing off (Requests per Minute 0) and no server limit: at 60/min the 500 pages would take 8 minutes by design. The emulator serves at most 100 calls per page.',
			'The output items (50 000 calls) stay in n8n’s memory for the rest of the execution, as for any node; a Summarize node counts distinct ids so the webhook answers with one item. Successful executions are not saved.',
		],
	};
}
