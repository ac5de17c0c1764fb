/**
 * How many requests the node's runs in this n8n process still have to send on a key, as far as
 * they can tell: an import sends one per item, so a run of 20 leads with 3 done has 17 to go. The
 * stated-count budget (statedCount.ts) uses it at the end of a run, when a place left unused
 * would cost a whole window. Per process, like the budget: each queue-mode worker counts its own
 * runs.
 */
interface Run {
	pending: number;
	/** The key's budget, once the run has sent on it; until then the run may be on any key. */
	key?: object;
}

const runs = new Map<object, Run>();

/** A run (one execution of the node) still has this many requests to send; Infinity: unknown. */
export function expectRequests(run: object, count: number): void {
	const known = runs.get(run);
	if (known === undefined) runs.set(run, { pending: count });
	else known.pending = count;
}

/** The run sends on this key (its budget): its work no longer counts for other keys. */
export function runSendsOn(run: object, key: object): void {
	const known = runs.get(run);
	if (known !== undefined) known.key = key;
}

export function runEnded(run: object): void {
	runs.delete(run);
}

/**
 * What the runs that may send on this key still have to send; Infinity while one of them cannot
 * tell, or none has said. A run that has not sent yet counts for every key: it may be on this one.
 */
export function pendingRequests(key: object): number {
	let total = 0;
	let counted = 0;
	for (const run of runs.values()) {
		if (run.key !== undefined && run.key !== key) continue;
		total += run.pending;
		counted++;
	}
	return counted === 0 ? Infinity : total;
}
