import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';

export const operations = { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['recording'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: "Get a call's signed recording URL, and optionally download the file",
				action: 'Get a recording',
			},
		],
		default: 'get',
	},
	...get.description,
];
