/**
 * Small workflows built in code for the e2e suite: Start → Items → Lead & Call Access, where
 * Items (a Split Out node) turns the `items` list of the run's input into one item each, so a
 * test chooses the node's input items the way an upstream node would produce them.
 */
import type { CredentialJson, WorkflowJson } from '../n8n';

export const NODE_NAME = 'Lead & Call Access';
export const NODE_TYPE = 'n8n-nodes-lead-call-access.leadCallAccess';

type WorkflowNode = WorkflowJson['nodes'][number];

export interface NodeWorkflowOptions {
	parameters: Record<string, unknown>;
	credential: CredentialJson;
	/** n8n's "On Error" setting; default: stop the workflow. */
	onError?: 'continueErrorOutput' | 'continueRegularOutput';
	/** A node fed by the error output (needs onError 'continueErrorOutput'). */
	onErrorOutput?: WorkflowNode;
}

export function nodeWorkflow(options: NodeWorkflowOptions): WorkflowJson {
	const node: WorkflowNode = {
		id: 'node',
		name: NODE_NAME,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [440, 0],
		parameters: options.parameters,
		credentials: {
			leadCallAccessApi: { id: options.credential.id, name: options.credential.name },
		},
		...(options.onError ? { onError: options.onError } : {}),
	};
	const nodes: WorkflowNode[] = [
		{
			id: 'start',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'items',
			name: 'Items',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [220, 0],
			parameters: { fieldToSplitOut: 'body.items', include: 'noOtherFields', options: {} },
		},
		node,
	];
	const connections: Record<string, unknown> = {
		Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
		Items: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] },
	};
	if (options.onErrorOutput) {
		nodes.push({ ...options.onErrorOutput, position: [660, 120] });
		connections[NODE_NAME] = {
			main: [[], [{ node: options.onErrorOutput.name, type: 'main', index: 0 }]],
		};
	}
	return { name: `e2e: ${String(options.parameters.operation)}`, nodes, connections, settings: {} };
}

/** The run's input for nodeWorkflow: the node's input items. */
export const withItems = (items: Array<Record<string, unknown>>) => ({ items });

/** An Edit Fields node that reads an upstream node through n8n's paired-item lookup. */
export function pairedLookupNode(name: string, fields: Record<string, string>): WorkflowNode {
	return {
		id: 'lookup',
		name,
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		position: [0, 0],
		parameters: {
			mode: 'manual',
			assignments: {
				assignments: Object.entries(fields).map(([field, value], index) => ({
					id: `field-${index}`,
					name: field,
					value,
					type: 'string',
				})),
			},
			includeOtherFields: false,
			options: {},
		},
	};
}

/** Import Lead parameters mapping `phone` and `name` from the incoming item. */
export const importLeadParameters = (options: Record<string, unknown> = {}) => ({
	resource: 'lead',
	operation: 'import',
	phoneE164: '={{ $json.phone }}',
	additionalFields: { name: '={{ $json.name }}' },
	options,
});
