import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { LIST_CALLS, iterateCallPages } from '../../../shared/calls/callPages';
import { readQueryParameters, queryParametersField } from '../../../shared/calls/queryParameters';
import { operationError } from '../../../shared/errors';
import { optionsCollection, readRequestPolicy } from '../../../shared/options';
import type { OperationDeclaration } from '../operation';

const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		displayOptions: { show: { returnAll: [false] } },
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
	},
	optionsCollection([queryParametersField]),
];

/** The Limit as a whole number of 1 or more; anything else fails the item before any request. */
function readLimit(this: IExecuteFunctions, itemIndex: number): number {
	const raw = this.getNodeParameter('limit', itemIndex, 50) as unknown;
	const numeric = typeof raw === 'number' || (typeof raw === 'string' && raw.trim() !== '');
	const limit = numeric ? Number(raw) : NaN;
	if (!Number.isInteger(limit) || limit < 1) {
		const shown = typeof raw === 'number' ? String(raw) : String(JSON.stringify(raw)).slice(0, 40);
		throw operationError(
			this.getNode(),
			`Limit must be a whole number of 1 or more, got ${shown}: enter one, or turn on Return All`,
			{ itemIndex },
		);
	}
	return limit;
}

async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? Infinity : readLimit.call(this, itemIndex);
	const calls: IDataObject[] = [];

	const pages = iterateCallPages.call(this, {
		query: readQueryParameters.call(this, itemIndex),
		wanted: () => limit - calls.length,
		policy: readRequestPolicy.call(this, itemIndex),
	});
	for await (const page of pages) calls.push(...page.calls.slice(0, limit - calls.length));
	return calls.map((call) => ({ json: call, pairedItem: { item: itemIndex } }));
}

export const operation: OperationDeclaration = {
	value: 'getAll',
	name: 'Get Many',
	description: 'List calls, following pages as needed',
	action: 'Get many calls',
	api: LIST_CALLS,
	properties,
	execute,
};
