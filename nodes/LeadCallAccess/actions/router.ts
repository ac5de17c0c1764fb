import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { NodeError } from '../../shared/errors';
import { operationError, statusOf, toNodeError, validationDetailsOf } from '../../shared/errors';
import { resources } from './resources';
import { findOperation } from './operation';

/**
 * With "Continue" every item is sent whatever happens to the others, so items run a few at a
 * time: with pacing on this changes nothing (requests wait for their slot), without it the round
 * trips overlap instead of adding up. Otherwise the run stops at the first failing item, and
 * n8n's semantics say no later item is sent: one item at a time.
 */
const CONCURRENT_ITEMS_WHEN_CONTINUING = 8;

/**
 * The item an error belongs to, in the one shape every supported n8n routes to the error output:
 * 1.x moves an item there only when its json is exactly `{ error }` or `{ error, message }`
 * (2.x also allows `details`), and an item carrying the node error itself (`item.error`) has
 * its json replaced by `{ error: message }` on both lines, losing the fields below. So:
 * `error` is the message, `message` holds what an IF node or a person needs beyond it.
 */
function errorItem(error: NodeError, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	const more: IDataObject = {};
	// Only API answers have a status ("422", "404"...); local validation errors have none.
	const httpCode = statusOf(error);
	if (httpCode) more.httpCode = httpCode;
	const details = validationDetailsOf(error);
	if (details !== undefined) more.details = details as IDataObject[];
	if (Object.keys(more).length > 0) json.message = more;
	return { json, pairedItem: { item: itemIndex } };
}

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
