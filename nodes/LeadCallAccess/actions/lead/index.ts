import type { INodeProperties } from 'n8n-workflow';

import * as importLead from './import.operation';

export const operations = { import: importLead };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['lead'] } },
		options: [
			{
				name: 'Import',
				value: 'import',
				description: 'Create or update a lead, matched by phone number',
				action: 'Import a lead',
			},
		],
		default: 'import',
	},
	...importLead.description,
];
