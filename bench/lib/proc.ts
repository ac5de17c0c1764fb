/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * What the bench reads about the n8n process, straight from /proc (Linux only): CPU time and
 * resident memory. Reading /proc measures n8n itself, not the bench process that also hosts
 * the emulator.
 */
import * as fs from 'fs';

/** Clock ticks per second of utime/stime; 100 on every Linux the bench targets. */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of the whole process (all threads), in ms. */
export function cpuMs(pid: number): number {
	const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
	// The command name (field 2) may contain spaces: fields are counted after its closing ')'.
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	const utime = Number(fields[11]);
	const stime = Number(fields[12]);
	return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
	const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
	const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
	if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
	return Number(match[1]);
}

export function rssMb(pid: number): number {
	return statusKb(pid, 'VmRSS') / 1024;
}

/**
 * Peak RSS since the last resetPeakRss(). Writing 5 to clear_refs resets the kernel's
 * high-water mark, so the peak of one run is exact even between two 20 ms samples.
 */
export function peakRssMb(pid: number): number {
	return statusKb(pid, 'VmHWM') / 1024;
}

export function resetPeakRss(pid: number): boolean {
	try {
		fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
		return true;
	} catch {
		return false; // older kernels: the sampler below still gives the peak
	}
}

/** Samples RSS every `everyMs` until stopped; stop() returns the highest value seen. */
export function sampleRss(pid: number, everyMs = 20): { stop(): number } {
	let max = rssMb(pid);
	const timer = setInterval(() => {
		try {
			max = Math.max(max, rssMb(pid));
		} catch {
			// the process exited: keep what was seen
		}
	}, everyMs);
	return {
		stop: () => {
			clearInterval(timer);
			return max;
		},
	};
}

/** Finds the `n8n start` process of a sandbox: its command line and its N8N_USER_FOLDER. */
export function findN8nPid(n8nBin: string, userFolder: string): number {
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
			if (args[1] !== n8nBin || args[2] !== 'start') continue;
			const env = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
			if (env.includes(`N8N_USER_FOLDER=${userFolder}`)) return Number(entry);
		} catch {
			// a process that exited meanwhile, or one we may not read
		}
	}
	throw new Error(`no running "n8n start" process for ${userFolder}`);
}
