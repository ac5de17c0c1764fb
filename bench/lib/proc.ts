/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * What the bench reads about the n8n process, straight from /proc (Linux only): CPU time and
 * resident memory. Reading /proc measures n8n itself, not the bench process that also hosts
 * the emulator.
 */
import * as fs from 'fs';

import type { N8nSandbox } from '../../devkit/n8n';
import { sleep } from './stats';

/** Clock ticks per second of utime/stime; 100 on every Linux the bench targets. */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of the whole process (all threads), in ms. */
export function cpuMs(pid: number): number {
	const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
	// The command name (field 2) may contain spaces: fields are counted after its closing ')'.
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
	const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
	const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
	if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
	return Number(match[1]) / 1024;
}

/**
 * The RSS now as the baseline, then stop() gives the peak since: the kernel's high-water mark
 * (VmHWM, reset by writing 5 to clear_refs, so the peak is exact even between two samples),
 * cross-checked by sampling every `everyMs`.
 */
export function trackPeakRss(pid: number, everyMs = 20): { baselineMb: number; stop(): number } {
	const baselineMb = statusMb(pid, 'VmRSS');
	let exact = true;
	try {
		fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
	} catch {
		exact = false; // older kernels: the sampling still gives the peak
	}
	let max = statusMb(pid, 'VmRSS');
	const timer = setInterval(() => {
		try {
			max = Math.max(max, statusMb(pid, 'VmRSS'));
		} catch {
			// the process exited: keep what was seen
		}
	}, everyMs);
	return {
		baselineMb,
		stop: () => {
			clearInterval(timer);
			return exact ? Math.max(max, statusMb(pid, 'VmHWM')) : max;
		},
	};
}

/**
 * Waits until the n8n process has (almost) stopped using CPU: after answering the webhook it
 * still finishes the execution (hooks, clean-up). Measuring before that would miss its cost,
 * and a previous run's tail would land in the next measurement. Bounded to 10 s.
 */
export async function waitUntilIdle(pid: number): Promise<void> {
	const deadline = Date.now() + 10_000;
	let before = cpuMs(pid);
	while (Date.now() < deadline) {
		await sleep(250);
		const now = cpuMs(pid);
		if (now - before <= 20) return;
		before = now;
	}
}

/** Runs `work` once n8n is idle: its result, n8n's RSS just before and its peak during it. */
export async function withPeakRss<T>(
	pid: number,
	work: () => Promise<T>,
): Promise<{ value: T; baselineMb: number; peakMb: number }> {
	await waitUntilIdle(pid);
	const tracker = trackPeakRss(pid);
	try {
		const value = await work();
		return { value, baselineMb: tracker.baselineMb, peakMb: tracker.stop() };
	} finally {
		tracker.stop(); // also on failure: the sampler must not outlive the run
	}
}

/** Finds the `n8n start` process of a sandbox: its command line and its N8N_USER_FOLDER. */
export function findN8nPid({ install, userFolder }: N8nSandbox): number {
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
			if (args[1] !== install.n8nBin || args[2] !== 'start') continue;
			const env = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
			if (env.includes(`N8N_USER_FOLDER=${userFolder}`)) return Number(entry);
		} catch {
			// a process that exited meanwhile, or one we may not read
		}
	}
	throw new Error(`no running "n8n start" process for ${userFolder}`);
}
