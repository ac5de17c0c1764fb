/**
 * The memory of n8n process B. Section 3: List Calls with Return All over 50 000 calls: wall
 * time, peak memory, and pages fetched against the minimum (100 calls per page, the emulator's
 * maximum). Section 4: one 200 MB recording downloaded by Get Recording into n8n's filesystem
 * binary data store: the file must be streamed to disk, so the peak RSS above the baseline has to
 * stay far below the file size.
 */
import { ourNode, parameters } from '../devkit/workflows';
import {
	deploy,
	failed,
	memoryRuns,
	trigger,
	withEmulator,
	type BenchEmulator,
	type BenchServer,
} from './lib/n8n';
import type { Section } from './lib/report';
import { distinct, fixed, median, medianRange } from './lib/stats';
import { chain, ourCredential } from './lib/workflows';

const EMULATOR = { rateLimit: false as const, recordRequests: false };
const CALLS = 50_000;
const MAX_PAGE_SIZE = 100;
const MIN_PAGES = Math.ceil(CALLS / MAX_PAGE_SIZE);

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
	return await withEmulator(
		{ ...EMULATOR, seedCalls: CALLS, maxPageSize: MAX_PAGE_SIZE },
		async (bench) => {
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
		},
	);
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

const FILE_BYTES = 200 * 1024 * 1024;
const MAX_PEAK_ABOVE_BASELINE_MB = 64;

export type RecordingRun = Awaited<ReturnType<typeof runRecording>>[number];

/** Get Recording with Download on, of the emulator's first call with a recording. */
function deployRecording(server: BenchServer, bench: BenchEmulator, id: string) {
	const callId = bench.emulator.calls.find((call) => call.has_recording)?.id;
	if (callId === undefined) throw new Error('the emulator has no call with a recording');
	const credential = ourCredential(id, bench, 0);
	const download = parameters.getRecording(callId, true);
	const node = ourNode({ name: 'Get Recording', parameters: download, credential });
	// Successful executions are saved here: the stored item says how many bytes n8n kept.
	return deploy(server, chain(id, [node], { credential }));
}

export async function runRecording(server: BenchServer) {
	// Warm-up with a 32 KiB file: loads the download and binary-store code before the baseline.
	await withEmulator(EMULATOR, async (small) => {
		await trigger(server, await deployRecording(server, small, 'recording-warm-up'), {});
	});
	return await withEmulator({ ...EMULATOR, recordingBytes: FILE_BYTES }, async (big) => {
		const deployed = await deployRecording(server, big, 'recording-200mb');
		return await memoryRuns(server, deployed, async (answer) => {
			if (answer.status !== 200) throw failed('recording download', answer);
			const execution = await server.server.waitForExecution(deployed.workflowId);
			const task = execution.data?.resultData.runData['Get Recording']?.[0];
			const storedBytes = Number(task?.data?.main?.[0]?.[0]?.binary?.data?.bytes ?? Number.NaN);
			if (storedBytes !== FILE_BYTES) {
				throw new Error(`n8n stored ${storedBytes} bytes, not ${FILE_BYTES}`);
			}
			return { storedBytes };
		});
	});
}

export function recordingAboveBaselineMb(runs: RecordingRun[]): number {
	return median(runs.map((run) => run.peakMb - run.baselineMb));
}

export function recordingSection(runs: RecordingRun[]): Section {
	const above = recordingAboveBaselineMb(runs);
	const met = above < MAX_PEAK_ABOVE_BASELINE_MB ? 'met' : 'NOT met';
	const wallS = runs.map((run) => run.wallMs / 1000);
	const [baselines, peaks] = [runs.map((run) => run.baselineMb), runs.map((run) => run.peakMb)];
	const aboveBaseline = runs.map((run) => run.peakMb - run.baselineMb);
	return {
		title: `4. Get Recording with Download, one ${FILE_BYTES / 1024 / 1024} MB file, filesystem binary data (median of 3, range in brackets)`,
		columns: [
			'wall s',
			'MB / s',
			'n8n baseline RSS MB',
			'n8n peak RSS MB',
			'peak above baseline MB',
			'bytes stored',
		],
		rows: [
			[
				medianRange(wallS),
				fixed(FILE_BYTES / 1024 / 1024 / median(wallS), 0),
				medianRange(baselines, 0),
				medianRange(peaks, 0),
				`${medianRange(aboveBaseline, 1)} (target < ${MAX_PEAK_ABOVE_BASELINE_MB}: ${met})`,
				distinct(runs.map((run) => run.storedBytes)),
			],
		],
		notes: [
			'A fresh n8n process (N8N_DEFAULT_BINARY_DATA_MODE=filesystem), warmed up with one 32 KiB download. Baseline: its RSS right before each run; peak: the kernel’s high-water mark during the run (reset before it), cross-checked by sampling every 20 ms.',
			'bytes stored: the binary item’s size as n8n saved it in the execution, read back from its database.',
		],
	};
}
