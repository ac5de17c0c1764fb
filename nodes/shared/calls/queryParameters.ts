import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { RunContext } from '../context';
import { operationError } from '../errors';
import { nodeParameter } from '../context';

/** Query parameters that the node sets itself for pagination; a user value would break it. */
const RESERVED = ['limit', 'cursor', 'offset', 'skip', 'starting_after'];

/** Names axios silently leaves out of the query string: refused rather than lost. */
const UNSENDABLE = ['__proto__', 'constructor', 'prototype'];

/**
 * The spec lists no filters for `GET /v1/calls`, so users pass the service's own
 * (for example a date or direction filter) as name/value pairs.
 */
export const queryParametersField: INodeProperties = {
	displayName: 'Query Parameters',
	name: 'queryParameters',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Parameter',
	default: {},
	description:
		'Filters sent to the service as they are, for example created_after = 2026-01-01T00:00:00Z, under the names the service documents. The node handles paging itself.',
	options: [
		{
			displayName: 'Parameter',
			name: 'parameters',
			values: [
				{
					displayName: 'Name',
					name: 'name',
					type: 'string',
					default: '',
					placeholder: 'e.g. created_after',
					description: 'Name of the filter, as the service documents it',
				},
				{
					displayName: 'Value',
					name: 'value',
					type: 'string',
					default: '',
					placeholder: 'e.g. 2026-01-01T00:00:00Z',
					description: 'Value of the filter, sent as text',
				},
			],
		},
	],
};

export function readQueryParameters(this: RunContext, itemIndex?: number): IDataObject {
	const pairs = nodeParameter<Array<{ name?: string; value?: unknown }>>(
		this,
		'options.queryParameters.parameters',
		[],
		itemIndex,
	);
	const query: IDataObject = {};
	for (const { name, value } of pairs) {
		const key = String(name ?? '').trim();
		if (key === '') continue;
		if (RESERVED.includes(key)) {
			throw operationError(
				this.getNode(),
				`Query parameter "${key}" is set by the node for pagination; use Limit / Return All instead`,
				{ itemIndex },
			);
		}
		if (UNSENDABLE.includes(key)) {
			throw operationError(
				this.getNode(),
				`Query parameter "${key}" cannot be sent (n8n drops this name for safety): remove it, or use the name your service documents`,
				{ itemIndex },
			);
		}
		query[key] = value === undefined || value === null ? '' : String(value);
	}
	return query;
}
