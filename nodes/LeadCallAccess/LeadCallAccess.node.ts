import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TEST, testCredential } from '../shared/credentialCheck';
import { resourceProperties, subtitleOf } from './actions/operation';
import { resources, router } from './actions/router';
import { searchCalls } from './methods/searchCalls';
import { searchLawfulBases } from './methods/searchLawfulBases';

const defaultResource = resources[0].value;

/** Outside the description: its subtitle is made from the operations (subtitleOf). */
const resourceProperty: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: resources
		.map(({ name, value }) => ({ name, value }))
		.sort((a, b) => a.name.localeCompare(b.name)),
	default: defaultResource,
};

export class LeadCallAccess implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Lead & Call Access',
		name: 'leadCallAccess',
		icon: { light: 'file:leadCallAccess.svg', dark: 'file:leadCallAccess.dark.svg' },
		group: ['transform'],
		// 2: Get Recording's Call ID became a resource locator (version 1 keeps the text field).
		// 3: Import Lead's Default Country became a list of countries (1 and 2 keep the text field).
		version: [1, 2, 3],
		defaultVersion: 3,
		subtitle: subtitleOf(resources),
		description: 'Import leads, list calls and export call recordings',
		defaults: { name: 'Lead & Call Access' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'leadCallAccessApi', required: true, testedBy: 'leadCallAccessApiTest' }],
		properties: [resourceProperty, ...resources.flatMap(resourceProperties)],
	};

	methods = {
		listSearch: { searchCalls, searchLawfulBases },
		credentialTest: { [CREDENTIAL_TEST]: testCredential },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
