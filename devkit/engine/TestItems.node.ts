/* eslint-disable @n8n/community-nodes/icon-validation, @n8n/community-nodes/missing-paired-item, @n8n/community-nodes/node-usable-as-tool, @n8n/community-nodes/require-node-description-fields -- dev code, not in the package n8n loads: node rules do not apply */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

/**
 * Test-only start node: emits the items written in its `items` parameter, standing in
 * for whatever produces leads in a real workflow (a form, a CRM, a CSV file).
 */
export class TestItems implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Items',
		name: 'testItems',
		group: ['input'],
		version: 1,
		description: 'Emits fixed items',
		defaults: { name: 'Test Items' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | IDataObject[];
		const items = (typeof raw === 'string' ? JSON.parse(raw) : raw) as IDataObject[];
		return [items.map((json) => ({ json }))];
	}
}
