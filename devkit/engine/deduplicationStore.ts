/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * n8n's deduplication store for the engine suite: an in-memory `IDataDeduplicator` behind
 * n8n-core's real `DataDeduplicationService` (which `this.helpers.checkProcessedAndRecord` and
 * friends call). It keeps the contract of n8n's database-backed one (packages/cli
 * deduplication-helper, the same on 1.123 and 2.x), in "entries" mode:
 * - one row per workflow and context (`n:<node id>` for scope node, '' for scope workflow)
 *   holding the hashes of the recorded values, oldest first;
 * - check-and-record answers from the row as read, appends the new ones, then keeps the newest
 *   `maxEntries`; remove deletes one occurrence of each value; clear deletes the row;
 * - each call reads the row, then writes it back later (a database round trip): two calls at
 *   once lose one's change, as they do in n8n.
 */
import { createHash } from 'crypto';

import { DataDeduplicationService } from 'n8n-core';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

interface Row {
	mode: string;
	data: string[];
}

const roundTrip = () => new Promise((resolve) => setImmediate(resolve));
const hash = (value: DeduplicationItemTypes) =>
	createHash('md5').update(String(value)).digest('base64');

export class InMemoryDeduplicator implements IDataDeduplicator {
	/** Rows as the database holds them: serialised, keyed by workflow id and context. */
	readonly rows = new Map<string, string>();

	private slot(scope: DeduplicationScope, contextData: ICheckProcessedContextData): string {
		if (!contextData.workflow.id) throw new Error('The workflow has no id');
		if (scope === 'node' && !contextData.node) throw new Error("Scope 'node' needs the node");
		const context = scope === 'node' ? `n:${contextData.node!.id}` : '';
		return `${contextData.workflow.id} ${context}`;
	}

	private async read(slot: string, options: ICheckProcessedOptions): Promise<Row | undefined> {
		if (options.mode !== 'entries') throw new Error(`mode ${options.mode} is not implemented`);
		await roundTrip();
		const text = this.rows.get(slot);
		const row = text === undefined ? undefined : (JSON.parse(text) as Row);
		if (row && row.mode !== options.mode) throw new Error('saved with another mode');
		return row;
	}

	private async write(slot: string, row: Row): Promise<void> {
		await roundTrip();
		this.rows.set(slot, JSON.stringify(row));
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		const slot = this.slot(scope, contextData);
		const row = (await this.read(slot, options)) ?? { mode: options.mode, data: [] };
		const known = new Set(row.data);
		const output: IDeduplicationOutput = { new: [], processed: [] };
		for (const item of items) {
			const isKnown = known.has(hash(item));
			output[isKnown ? 'processed' : 'new'].push(item);
			if (!isKnown) row.data.push(hash(item));
		}
		if (options.maxEntries && row.data.length > options.maxEntries) {
			row.data.splice(0, row.data.length - options.maxEntries);
		}
		await this.write(slot, row);
		return output;
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<void> {
		const slot = this.slot(scope, contextData);
		const row = await this.read(slot, options);
		if (!row) return;
		for (const item of items) {
			const index = row.data.indexOf(hash(item));
			if (index >= 0) row.data.splice(index, 1);
		}
		await this.write(slot, row);
	}

	async clearAllProcessedItems(
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
	): Promise<void> {
		await roundTrip();
		this.rows.delete(this.slot(scope, contextData));
	}

	async getProcessedDataCount(
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<number> {
		return (await this.read(this.slot(scope, contextData), options))?.data.length ?? 0;
	}

	/** Entries of one workflow's rows (for tests that check the store stays bounded). */
	entryCount(workflowId: string): number {
		return [...this.rows]
			.filter(([slot]) => slot.startsWith(`${workflowId} `))
			.reduce((count, [, text]) => count + (JSON.parse(text) as Row).data.length, 0);
	}
}

/** The one store of this test process, set up in n8n-core like n8n does at start-up. */
export const deduplicationStore = new InMemoryDeduplicator();
let initialized: Promise<void> | undefined;

export async function ensureDeduplicationService(): Promise<void> {
	initialized ??= DataDeduplicationService.init(deduplicationStore);
	await initialized;
}
