import { cpuMs } from './proc';
import { sleep } from './stats';

/**
 * Waits until the n8n process has (almost) stopped using CPU: after answering the webhook it
 * still finishes the execution (hooks, clean-up). Measuring before that would miss its cost,
 * and a previous run's tail would land in the next measurement. Bounded to 10 s.
 */
export async function waitUntilIdle(pid: number, quietMs = 250, maxCpuMs = 20): Promise<void> {
	const deadline = Date.now() + 10_000;
	let before = cpuMs(pid);
	while (Date.now() < deadline) {
		await sleep(quietMs);
		const now = cpuMs(pid);
		if (now - before <= maxCpuMs) return;
		before = now;
	}
}
