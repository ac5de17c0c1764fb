/**
 * Section 4: one 200 MB recording downloaded by Get Recording into n8n's filesystem binary
 * data store. The file must be streamed to disk, so the n8n process's peak RSS above its
 * baseline has to stay far below the file size.
 */
import { startBenchEmulator, type BenchEmulator } from './lib/emulator';
import { withPeakRss } from './lib/memory';
import { deploy, trigger, type BenchServer, type Deployed } from './lib/n8n';
import type { Section } from './lib/report';
import { fixed, median, medianRange } from './lib/stats';
import { chain, getRecordingNode, ourCredential } from './lib/workflows';

const FILE_BYTES = 200 * 1024 * 1024;
const REPEATS = 3;
const MAX_PEAK_ABOVE_BASELINE_MB = 64;

export interface RecordingRun {
	wallMs: number;
	baselineMb: number;
	peakMb: number;
	storedBytes: number;
}

async function deployRecording(
	server: BenchServer,
	bench: BenchEmulator,
	id: string,
): Promise<Deployed> {
	const callId = bench.emulator.calls.find((call) => call.has_recording)?.id;
	if (callId === undefined) throw new Error('the emulator has no call with a recording');
	const credential = ourCredential(id, bench.emulator.baseUrl, bench.apiKey, 0);
	// Successful executions are saved here: the stored item says how many bytes n8n kept.
	const built = chain(id, [getRecordingNode(credential, callId)]);
	return await deploy(server, built.workflow, built.hookPath, [credential]);
}

async function storedBytes(server: BenchServer, deployed: Deployed): Promise<number> {
	const execution = await server.server.waitForExecution(deployed.workflowId);
	const item = execution.data?.resultData.runData['Get Recording']?.[0]?.data?.main?.[0]?.[0];
	return Number(item?.binary?.data?.bytes ?? Number.NaN);
}

export async function runRecording(server: BenchServer): Promise<RecordingRun[]> {
	const small = await startBenchEmulator({ rateLimit: false, recordRequests: false });
	const big = await startBenchEmulator({
		rateLimit: false,
		recordRequests: false,
		recordingBytes: FILE_BYTES,
	});
	try {
		// Warm-up with a 32 KiB file: loads the download and binary-store code before the baseline.
		const warmUp = await deployRecording(server, small, 'recording-warm-up');
		await trigger(server, warmUp, {});
		const deployed = await deployRecording(server, big, 'recording-200mb');

		const runs: RecordingRun[] = [];
		for (let repeat = 0; repeat < REPEATS; repeat++) {
			const measured = await withPeakRss(server.pid, () => trigger(server, deployed, {}));
			const { status, body, wallMs } = measured.value;
			if (status !== 200) {
				throw new Error(`recording download failed: HTTP ${status} ${JSON.stringify(body)}`);
			}
			const bytes = await storedBytes(server, deployed);
			if (bytes !== FILE_BYTES) throw new Error(`n8n stored ${bytes} bytes, not ${FILE_BYTES}`);
			runs.push({
				wallMs,
				baselineMb: measured.baselineMb,
				peakMb: measured.peakMb,
				storedBytes: bytes,
			});
		}
		return runs;
	} finally {
		await big.stop();
		await small.stop();
	}
}

export function recordingAboveBaselineMb(runs: RecordingRun[]): number {
	return median(runs.map((run) => run.peakMb - run.baselineMb));
}

export function recordingSection(runs: RecordingRun[]): Section {
	const above = recordingAboveBaselineMb(runs);
	const wallS = runs.map((run) => run.wallMs / 1000);
	return {
		title: `4. Get Recording with Download, one ${FILE_BYTES / 1024 / 1024} MB file, filesystem binary data (median of ${REPEATS}, range in brackets)`,
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
				medianRange(
					runs.map((run) => run.baselineMb),
					0,
				),
				medianRange(
					runs.map((run) => run.peakMb),
					0,
				),
				`${medianRange(
					runs.map((run) => run.peakMb - run.baselineMb),
					1,
				)} (target < ${MAX_PEAK_ABOVE_BASELINE_MB}: ${above < MAX_PEAK_ABOVE_BASELINE_MB ? 'met' : 'NOT met'})`,
				[...new Set(runs.map((run) => run.storedBytes))].join(', '),
			],
		],
		notes: [
			'A fresh n8n process (N8N_DEFAULT_BINARY_DATA_MODE=filesystem), warmed up with one 32 KiB download. Baseline: its RSS right before each run; peak: the kernel’s high-water mark during the run (reset before it), cross-checked by sampling every 20 ms.',
			'bytes stored: the binary item’s size as n8n saved it in the execution, read back from its database.',
		],
	};
}
