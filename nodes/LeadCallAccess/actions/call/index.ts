import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getAll.operation';

export const operations = { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['call'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List calls, following pages as needed',
				action: 'Get many calls',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
