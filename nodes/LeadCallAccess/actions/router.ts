import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { errorItem, operationError, toNodeError } from '../../shared/errors';
import type { ResourceDeclaration } from './operation';
import { findOperation } from './operation';
import * as getManyCalls from './call/getAll.operation';
import * as importLead from './lead/import.operation';
import * as getRecording from './recording/get.operation';

/** The node's resources, in the order their fields appear; the first is the default. */
export const resources: ResourceDeclaration[] = [
	{ value: 'lead', name: 'Lead', operations: [importLead.operation] },
	{ value: 'call', name: 'Call', operations: [getManyCalls.operation] },
	{ value: 'recording', name: 'Recording', operations: [getRecording.operation] },
];

/**
 * With "Continue" every item is sent whatever happens to the others, so items run a few at a
 * time: with pacing on this changes nothing (requests wait for their slot), without it the round
 * trips overlap instead of adding up. Otherwise the run stops at the first failing item, and
 * n8n's semantics say no later item is sent: one item at a time.
 */
const CONCURRENT_ITEMS_WHEN_CONTINUING = 8;

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const declared = findOperation(resources, resource, operation);
	const execute = declared?.execute;
	if (execute === undefined) {
		throw operationError(
			this.getNode(),
			`The operation "${operation}" of resource "${resource}" is not supported`,
		);
	}

	const continueOnFail = this.continueOnFail();
	const runItem = async (itemIndex: number): Promise<INodeExecutionData[]> => {
		try {
			return await execute.call(this, itemIndex);
		} catch (error) {
			// Named after its item: n8n shows which item failed.
			const nodeError = toNodeError(this.getNode(), error, itemIndex);
			if (!continueOnFail) throw nodeError;
			return [errorItem(nodeError, itemIndex)];
		}
	};

	const results: INodeExecutionData[][] = new Array(items.length);
	let nextItem = 0;
	const worker = async () => {
		while (nextItem < items.length) {
			const itemIndex = nextItem++;
			results[itemIndex] = await runItem(itemIndex);
		}
	};
	const workers = continueOnFail ? Math.min(CONCURRENT_ITEMS_WHEN_CONTINUING, items.length) : 1;
	await Promise.all(Array.from({ length: workers }, worker));
	return [results.flat()];
}
