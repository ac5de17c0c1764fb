/**
 * The one place that builds workflow JSON for the engine suite, the real-n8n suites, the
 * benchmarks and the demo: Source → Lead & Call Access (→ a node on its error output).
 *
 * The source turns a list into the node's input items, the way an upstream node would:
 * - `items`: an engine-only node (devkit/engine/TestItems.node.ts) that emits its `items` parameter;
 * - `manual`: Manual Trigger → Split Out `body.items`; the real-n8n server swaps the trigger for
 *   a Webhook of the same name, so the run's POST body carries the items.
 */
import { randomUUID } from 'crypto';

import * as packageJson from '../package.json';
import type { CredentialJson, WorkflowJson } from './n8n/types';

export const NODE_TYPE = `${packageJson.name}.leadCallAccess`;
export const TRIGGER_TYPE = `${packageJson.name}.leadCallAccessTrigger`;
export const CREDENTIAL_TYPE = 'leadCallAccessApi';
export const TEST_ITEMS_TYPE = 'test.items';
export const NODE_NAME = 'Lead & Call Access';

export type { CredentialJson, WorkflowJson };
type WorkflowNode = WorkflowJson['nodes'][number];

/** A node at the origin: chainWorkflow lays nodes out. */
export const node = (
	name: string,
	type: string,
	typeVersion: number,
	parameters: Record<string, unknown> = {},
): WorkflowNode => ({ name, type, typeVersion, position: [0, 0], parameters });

export function credentialJson(
	id: string,
	data: {
		baseUrl: string;
		apiKey: string;
		requestsPerMinute?: number;
		rateWindowSeconds?: number;
	},
	name = `Lead & Call Access ${id}`,
): CredentialJson {
	const requestsPerMinute = data.requestsPerMinute ?? 0;
	return { id, name, type: CREDENTIAL_TYPE, data: { ...data, requestsPerMinute } };
}

const credentialRef = ({ id, name }: Pick<CredentialJson, 'id' | 'name'>) => ({
	[CREDENTIAL_TYPE]: { id, name },
});

/** A Webhook that runs the workflow on a POST and answers with the last node's first item. */
export function webhookTrigger(): WorkflowNode {
	const path = randomUUID();
	const webhook = node('Webhook', 'n8n-nodes-base.webhook', 2, {
		httpMethod: 'POST',
		path,
		responseMode: 'lastNode',
		responseData: 'firstEntryJson',
		options: {},
	});
	return { ...webhook, webhookId: path };
}

/** Split Out: one item per entry of the trigger's `body.items`. */
export const splitOutItems = () =>
	node('Items', 'n8n-nodes-base.splitOut', 1, {
		fieldToSplitOut: 'body.items',
		include: 'noOtherFields',
		options: {},
	});

/** Nodes in a chain, each feeding the next on its first output. */
export function chainWorkflow(
	name: string,
	nodes: WorkflowNode[],
	settings: Record<string, unknown> = {},
): WorkflowJson {
	const connections: Record<string, unknown> = {};
	for (let index = 0; index < nodes.length - 1; index++) {
		connections[nodes[index].name] = {
			main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]],
		};
	}
	return {
		name,
		nodes: nodes.map((each, index) => ({
			...each,
			id: each.id ?? String(index + 1),
			position: [index * 220, 0] as [number, number],
		})),
		connections,
		settings,
	};
}

export function ourNode(options: {
	parameters: Record<string, unknown>;
	credential: Pick<CredentialJson, 'id' | 'name'>;
	/** n8n's "On Error" setting; default: stop the workflow. */
	onError?: 'continueErrorOutput' | 'continueRegularOutput';
	typeVersion?: number;
	name?: string;
}): WorkflowNode {
	return {
		...node(options.name ?? NODE_NAME, NODE_TYPE, options.typeVersion ?? 1, options.parameters),
		credentials: credentialRef(options.credential),
		...(options.onError ? { onError: options.onError } : {}),
	};
}

/** Source → our node (→ `onErrorOutput` on its error output, with onError 'continueErrorOutput'). */
export function nodeWorkflow(
	options: Parameters<typeof ourNode>[0] & {
		source?: 'items' | 'manual';
		/** Input items, for the `items` source (`manual` takes them from the run's body). */
		items?: Array<Record<string, unknown>>;
		onErrorOutput?: WorkflowNode;
		nodeName?: string;
	},
): WorkflowJson {
	const ours = ourNode({ ...options, name: options.nodeName });
	const source =
		options.source === 'items'
			? [
					node('Items', TEST_ITEMS_TYPE, 1, {
						items: JSON.stringify(options.items ?? [{}]),
					}),
				]
			: [node('Start', 'n8n-nodes-base.manualTrigger', 1), splitOutItems()];
	const { resource, operation } = options.parameters;
	const workflow = chainWorkflow(`${String(resource)}: ${String(operation)}`, [...source, ours]);
	if (options.onErrorOutput) {
		workflow.nodes.push({ ...options.onErrorOutput, position: [660, 220] });
		workflow.connections[ours.name] = {
			main: [[], [{ node: options.onErrorOutput.name, type: 'main', index: 0 }]],
		};
	}
	return workflow;
}

export const TRIGGER_NAME = 'On New Call';

/**
 * Poll Times that never come up during a run (00:00:00 on 1 January): every poll is then one
 * the run drives, and none sneaks in between adding calls and checking what was emitted.
 */
export const NO_SCHEDULED_POLLS = {
	item: [{ mode: 'custom', cronExpression: '0 0 0 1 1 *' }],
};

/** Poll Times at the given seconds of every minute: n8n's own schedule, soon. */
export const pollTimesAtSeconds = (...seconds: number[]) => ({
	item: seconds.map((second) => ({
		mode: 'custom',
		cronExpression: `${second} * * * * *`,
	})),
});

export interface TriggerWorkflowOptions {
	credentialId: string;
	/** The credential's name as created (default: "Lead & Call Access"). */
	credentialName?: string;
	/** The workflow's name (default: numbered). */
	name?: string;
	/** The trigger's parameters; Poll Times default to NO_SCHEDULED_POLLS. */
	parameters?: Record<string, unknown>;
	settings?: Record<string, unknown>;
	/** Nodes after the trigger; `connections` may name the trigger as a source. */
	nodes?: WorkflowNode[];
	connections?: Record<string, unknown>;
}

let triggerWorkflowCount = 0;

/** A workflow starting with the trigger (node id `trigger`), for a real n8n. */
export function triggerWorkflow(options: TriggerWorkflowOptions): WorkflowJson {
	const credential = {
		id: options.credentialId,
		name: options.credentialName ?? NODE_NAME,
	};
	const parameters = {
		pollTimes: NO_SCHEDULED_POLLS,
		options: {},
		...options.parameters,
	};
	return {
		name: options.name ?? `Trigger e2e ${++triggerWorkflowCount}`,
		nodes: [
			{
				...node(TRIGGER_NAME, TRIGGER_TYPE, 1, parameters),
				id: 'trigger',
				credentials: credentialRef(credential),
			},
			...(options.nodes ?? []),
		],
		connections: options.connections ?? {},
		settings: { executionOrder: 'v1', ...options.settings },
	};
}

/** The webhook path of a workflow that starts with webhookTrigger(). */
export function webhookPath(workflow: WorkflowJson): string {
	const webhook = workflow.nodes.find((each) => each.type === 'n8n-nodes-base.webhook');
	if (webhook?.webhookId === undefined) throw new Error(`${workflow.name} has no webhook`);
	return webhook.webhookId;
}

/** The run's input for the `manual` source: the node's input items. */
export const withItems = (items: Array<Record<string, unknown>>) => ({ items });

/** An Edit Fields node that reads an upstream node through n8n's paired-item lookup. */
export function pairedLookupNode(name: string, fields: Record<string, string>): WorkflowNode {
	const assignments = Object.entries(fields).map(([field, value], index) => ({
		id: `field-${index}`,
		name: field,
		value,
		type: 'string',
	}));
	return node(name, 'n8n-nodes-base.set', 3.4, {
		mode: 'manual',
		assignments: { assignments },
		includeOtherFields: false,
		options: {},
	});
}

/** Parameters of each operation as a user sets them up, mapping the incoming item's fields. */
export const parameters = {
	importLead: (options: Record<string, unknown> = {}) => ({
		resource: 'lead',
		operation: 'import',
		phoneE164: '={{ $json.phone }}',
		additionalFields: { name: '={{ $json.name }}' },
		options,
	}),
	listCalls: (returnAll = false, limit = 50) => ({
		resource: 'call',
		operation: 'getAll',
		returnAll,
		limit,
		options: {},
	}),
	getRecording: (callId = '={{ $json.id }}', download = false) => ({
		resource: 'recording',
		operation: 'get',
		callId,
		download,
		binaryPropertyName: 'data',
		options: {},
	}),
};

/** A lead as an upstream node emits it (a type alias, so it is assignable to n8n's IDataObject). */
export type Lead = { phone: string; name: string };

/** `count` distinct E.164 numbers as a form or CRM would send them; `start` keeps runs apart. */
export function leads(count: number, start = 0): Lead[] {
	return Array.from({ length: count }, (_, index) => ({
		phone: `+1415${String(5_550_000 + start + index).padStart(7, '0')}`,
		name: `Lead ${start + index}`,
	}));
}
