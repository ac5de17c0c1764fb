/**
 * How many requests the node's runs in this n8n process still have to send, as far as they can
 * tell: an import sends one per item, so a run of 20 leads with 3 done has 17 to go. The rate
 * budget (pacer.ts) uses it at the end of a run, when a place left unused would cost a whole
 * window. Per process, like the budget: each queue-mode worker counts its own runs.
 */
const pendingByRun = new Map<object, number>();

/** A run (one execution of the node) still has this many requests to send; Infinity: unknown. */
export function expectRequests(run: object, count: number): void {
	pendingByRun.set(run, count);
}

export function runEnded(run: object): void {
	pendingByRun.delete(run);
}

/** What all runs still have to send; Infinity while one cannot tell, or none has said. */
export function pendingRequests(): number {
	if (pendingByRun.size === 0) return Infinity;
	let total = 0;
	for (const count of pendingByRun.values()) total += count;
	return total;
}
