import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { VALIDATION_DETAILS } from '../../shared/transport/errors';
import * as call from './call';
import * as lead from './lead';
import * as recording from './recording';

type OperationExecute = (
	this: IExecuteFunctions,
	itemIndex: number,
) => Promise<INodeExecutionData[]>;

const resources: Record<string, Record<string, { execute: OperationExecute }>> = {
	lead: lead.operations,
	call: call.operations,
	recording: recording.operations,
};

/**
 * Items run a few at a time: with pacing on this changes nothing (requests wait for their
 * slot), without it the round trips overlap instead of adding up.
 */
const CONCURRENT_ITEMS = 8;

/** The item an error belongs to, in the shape n8n routes to the error output. */
function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const details = (error as { context?: Record<string, unknown> }).context?.[VALIDATION_DETAILS];
	return {
		json: details === undefined ? { error: error.message } : { error: error.message, details },
		pairedItem: { item: itemIndex },
	};
}

function withItemIndex(this: IExecuteFunctions, error: Error, itemIndex: number): Error {
	if (error instanceof NodeOperationError || 'context' in error) {
		const context = (error as NodeOperationError).context;
		if (context.itemIndex === undefined) context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(this.getNode(), error, { itemIndex });
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const execute = resources[resource]?.[operation]?.execute;
	if (execute === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of resource "${resource}" is not supported`,
		);
	}

	const results: INodeExecutionData[][] = new Array(items.length);
	const failures: Array<{ error: Error; itemIndex: number }> = [];
	let nextItem = 0;
	const worker = async () => {
		while (failures.length === 0 && nextItem < items.length) {
			const itemIndex = nextItem++;
			try {
				results[itemIndex] = await execute.call(this, itemIndex);
			} catch (error) {
				if (this.continueOnFail()) {
					results[itemIndex] = [errorItem(error as Error, itemIndex)];
				} else {
					failures.push({ error: error as Error, itemIndex });
				}
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(CONCURRENT_ITEMS, items.length) }, worker));
	if (failures.length > 0) {
		// Items still in flight may fail too: report the first item, as a sequential run would.
		const first = failures.reduce((a, b) => (b.itemIndex < a.itemIndex ? b : a));
		throw withItemIndex.call(this, first.error, first.itemIndex);
	}
	return [results.flat()];
}
