import { waitUntilIdle } from './idle';
import { peakRssMb, resetPeakRss, rssMb, sampleRss } from './proc';

export interface MemoryRun<T> {
	value: T;
	baselineMb: number;
	peakMb: number;
}

/**
 * Runs `work` and returns the n8n process's peak RSS during it, with the RSS just before as
 * the baseline. The peak is the kernel's high-water mark (reset first), cross-checked by
 * sampling every 20 ms.
 */
export async function withPeakRss<T>(pid: number, work: () => Promise<T>): Promise<MemoryRun<T>> {
	await waitUntilIdle(pid);
	const baselineMb = rssMb(pid);
	const exact = resetPeakRss(pid);
	const sampler = sampleRss(pid);
	let sampledMb: number;
	let value: T;
	try {
		value = await work();
	} finally {
		sampledMb = sampler.stop();
	}
	const peakMb = exact ? Math.max(sampledMb, peakRssMb(pid)) : sampledMb;
	return { value, baselineMb, peakMb };
}
