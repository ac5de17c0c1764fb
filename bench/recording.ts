/**
 * Section 4: one 200 MB recording downloaded by Get Recording into n8n's filesystem binary
 * data store. The file must be streamed to disk, so the n8n process's peak RSS above its
 * baseline has to stay far below the file size.
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

const FILE_BYTES = 200 * 1024 * 1024;
const MAX_PEAK_ABOVE_BASELINE_MB = 64;
const EMULATOR = { rateLimit: false as const, recordRequests: false };

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
