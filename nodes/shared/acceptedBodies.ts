/**
 * "Skip Unchanged Leads": which request bodies the service has already accepted, kept in n8n's
 * deduplication store (its database: shared by queue-mode workers, kept across restarts).
 *
 * n8n's store only offers check-and-record, and a node may be killed at any moment, so the
 * store must never hold a state that reads "accepted" for a body the service did not accept.
 * Each body has two entries: its key K, and a "not accepted yet" marker M.
 *
 *     accepted  <=>  K present and M absent
 *
 * Checking records K and M together (state: not accepted). For a body that was accepted, M is
 * then removed again at once; for the others it is removed only after the service answered 2xx.
 * Every step in between reads "not accepted": a crash or a lost write costs a re-send, never a
 * skipped lead.
 *
 * Bounded without n8n's `maxEntries`: it forgets the oldest entries one by one, and could forget
 * a marker while keeping its (newer) key, which reads "accepted". Past the limit everything is
 * forgotten instead (both entries of every body), which only costs one full re-send.
 */
import type { IExecuteFunctions, ICheckProcessedOptions, NodeOperationError } from 'n8n-workflow';

import { operationError } from './errors';

/**
 * Entries a node keeps: one per accepted body (a lead's version), plus one per body of the
 * current run until its answer. When a run would take it past this, everything is forgotten.
 */
export const MAX_ENTRIES = 50_000;

/** Node scope: this node of this workflow (n8n keys it by workflow id and node id). */
const SCOPE = 'node';

/** Changing the format only makes every lead look new once: bump it when the key changes. */
const FORMAT = 'accepted-body/v1';

type Store = Pick<
	IExecuteFunctions['helpers'],
	'checkProcessedAndRecord' | 'removeProcessed' | 'clearAllProcessedItems' | 'getProcessedDataCount'
>;

const OPTIONS: ICheckProcessedOptions = { mode: 'entries' };

/** The same value for the same JSON whatever the key order. */
function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const entries = Object.keys(value as object)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as never)[key])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value ?? null);
}

/**
 * One body at one service: the destination (credential and its Base URL) and the exact JSON.
 * n8n stores a hash of it, so its length does not matter.
 */
export function bodyKey(destination: string, body: unknown): string {
	return `${FORMAT} ${destination} ${canonicalJson(body)}`;
}

const markerOf = (key: string) => `not-accepted ${key}`;

/** Store calls of one node (workflow + node id) in this process, one at a time: n8n's store
 * reads, changes and writes one row, so two calls at once would lose one's change. */
const queues = new Map<string, Promise<unknown>>();

function serialized<T>(slot: string, operation: () => Promise<T>): Promise<T> {
	const previous = queues.get(slot) ?? Promise.resolve();
	const next = previous.then(operation, operation);
	const tail = next.catch(() => undefined);
	queues.set(slot, tail);
	void tail.then(() => {
		if (queues.get(slot) === tail) queues.delete(slot);
	});
	return next;
}

function storeOf(ctx: IExecuteFunctions): Store {
	const helpers = ctx.helpers as Partial<Store>;
	if (
		typeof helpers.checkProcessedAndRecord !== 'function' ||
		typeof helpers.removeProcessed !== 'function' ||
		typeof helpers.clearAllProcessedItems !== 'function' ||
		typeof helpers.getProcessedDataCount !== 'function'
	) {
		throw operationError(
			ctx.getNode(),
			"Skip Unchanged Leads needs n8n's deduplication store, which n8n does not offer to this node here (for example when an AI agent uses it as a tool). Turn the option off.",
		);
	}
	return helpers as Store;
}

function storeError(ctx: IExecuteFunctions, error: unknown): NodeOperationError {
	const saved = ctx.getWorkflow().id;
	return operationError(
		ctx.getNode(),
		saved
			? "Skip Unchanged Leads could not use n8n's deduplication store: check that n8n's database is reachable, then run the workflow again"
			: 'Skip Unchanged Leads remembers leads per saved workflow: save the workflow and run it again',
		{ description: (error as Error).message, cause: error as Error },
	);
}

/** The accepted bodies as seen by one run of the node. */
export class AcceptedBodies {
	private readonly store: Store;
	private readonly slot: string;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly maxEntries = MAX_ENTRIES,
	) {
		this.store = storeOf(ctx);
		this.slot = `${ctx.getWorkflow().id ?? ''}/${ctx.getNode().id}`;
	}

	private async call<T>(operation: (store: Store) => Promise<T>): Promise<T> {
		try {
			return await serialized(this.slot, async () => await operation(this.store));
		} catch (error) {
			throw storeError(this.ctx, error);
		}
	}

	/**
	 * Which of `keys` the service already accepted. Leaves every other key marked "not accepted"
	 * until `recordAccepted`. One check for a whole run: three store calls whatever its size.
	 */
	async check(keys: string[]): Promise<Set<string>> {
		const unique = [...new Set(keys)];
		if (unique.length === 0) return new Set();
		const stored = await this.call((store) => store.getProcessedDataCount(SCOPE, OPTIONS));
		if (stored + unique.length > this.maxEntries) await this.forgetAll();

		const entries = unique.flatMap((key) => [key, markerOf(key)]);
		const result = await this.call((store) =>
			store.checkProcessedAndRecord(entries, SCOPE, OPTIONS),
		);
		const seen = new Set(result.processed.map(String));
		const accepted = unique.filter((key) => seen.has(key) && !seen.has(markerOf(key)));
		// The check marked the accepted ones "not accepted" too: undo that.
		if (accepted.length > 0) {
			await this.call((store) => store.removeProcessed(accepted.map(markerOf), SCOPE, OPTIONS));
		}
		return new Set(accepted);
	}

	/** Call only after the service answered 2xx to exactly this body (checked before). */
	async recordAccepted(key: string): Promise<void> {
		await this.call((store) => store.removeProcessed([markerOf(key)], SCOPE, OPTIONS));
	}

	/** Forgets every body this node remembered: the next run sends every lead. */
	async forgetAll(): Promise<void> {
		await this.call((store) => store.clearAllProcessedItems(SCOPE, OPTIONS));
	}
}
