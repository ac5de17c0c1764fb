import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as call from './actions/call';
import * as lead from './actions/lead';
import * as recording from './actions/recording';
import { router } from './actions/router';

export class LeadCallAccess implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Lead & Call Access',
		name: 'leadCallAccess',
		icon: { light: 'file:leadCallAccess.svg', dark: 'file:leadCallAccess.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Import leads, list calls and export call recordings',
		defaults: { name: 'Lead & Call Access' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'leadCallAccessApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Call', value: 'call' },
					{ name: 'Lead', value: 'lead' },
					{ name: 'Recording', value: 'recording' },
				],
				default: 'lead',
			},
			...lead.description,
			...call.description,
			...recording.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
