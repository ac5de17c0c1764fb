/**
 * Workflow builders. Every bench workflow starts with a Webhook node (the server runs it on a
 * POST and answers when the last node finishes), so one long-lived n8n runs them all.
 */
import type { CredentialJson, WorkflowJson } from '../../devkit/n8n';
import {
	NODE_TYPE as OUR_NODE,
	chainWorkflow,
	credentialJson,
	credentialRef,
	leads,
	parameters,
	splitOutItems,
	webhookPath,
	webhookTrigger,
} from '../../devkit/workflows';

type WorkflowNode = WorkflowJson['nodes'][number];

export const makeLeads = leads;

export function ourCredential(
	id: string,
	baseUrl: string,
	apiKey: string,
	requestsPerMinute: number,
	/** The budget's window (hidden credential field): the bench's scaled window. */
	rateWindowSeconds = 60,
): CredentialJson {
	return credentialJson(
		id,
		{ baseUrl, apiKey, requestsPerMinute, rateWindowSeconds },
		`Bench ${id}`,
	);
}

export function ourImportNode(credential: CredentialJson): WorkflowNode {
	return {
		name: 'Import Lead',
		type: OUR_NODE,
		typeVersion: 1,
		position: [400, 0],
		parameters: parameters.importLead(),
		credentials: credentialRef(credential),
	};
}

export type HttpSetup = 'defaults' | 'retry' | 'batching';

/**
 * n8n's HTTP Request node doing the same import, set up as users usually do: the key in an
 * Authorization header, the lead fields as JSON body parameters.
 */
export function httpImportNode(
	baseUrl: string,
	apiKey: string,
	setup: HttpSetup,
	limit?: { requests: number; windowMs: number; retryWaitMs: number },
): WorkflowNode {
	if (setup !== 'defaults' && limit === undefined) throw new Error(`${setup} needs the limit`);
	const node: WorkflowNode = {
		name: 'Import Lead',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [400, 0],
		parameters: {
			method: 'POST',
			url: `${baseUrl}/v1/leads`,
			authentication: 'none',
			sendHeaders: true,
			specifyHeaders: 'keypair',
			headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${apiKey}` }] },
			sendBody: true,
			contentType: 'json',
			specifyBody: 'keypair',
			bodyParameters: {
				parameters: [
					{ name: 'phone_e164', value: '={{ $json.phone }}' },
					{ name: 'name', value: '={{ $json.name }}' },
				],
			},
			options:
				setup === 'batching' && limit
					? { batching: { batch: { batchSize: limit.requests, batchInterval: limit.windowMs } } }
					: {},
		},
	};
	if (setup === 'retry' && limit) {
		// "Retry On Fail" at its maximum: n8n caps maxTries at 5 and waitBetweenTries at 5000 ms.
		Object.assign(node, { retryOnFail: true, maxTries: 5, waitBetweenTries: limit.retryWaitMs });
	}
	return node;
}

export function listCallsNode(credential: CredentialJson, returnAll: boolean): WorkflowNode {
	return {
		name: 'List Calls',
		type: OUR_NODE,
		typeVersion: 1,
		position: [200, 0],
		parameters: parameters.listCalls(returnAll, 100),
		credentials: credentialRef(credential),
	};
}

/** Counts distinct call ids, so the webhook answers with one small item, not 50 000. */
export function countUniqueIdsNode(): WorkflowNode {
	return {
		name: 'Count',
		type: 'n8n-nodes-base.summarize',
		typeVersion: 1.1,
		position: [400, 0],
		parameters: {
			fieldsToSummarize: { values: [{ aggregation: 'countUnique', field: 'id' }] },
			options: {},
		},
	};
}

export function getRecordingNode(credential: CredentialJson, callId: string): WorkflowNode {
	return {
		name: 'Get Recording',
		type: OUR_NODE,
		typeVersion: 1,
		position: [200, 0],
		parameters: parameters.getRecording(callId, true),
		credentials: credentialRef(credential),
	};
}

export interface BuiltWorkflow {
	workflow: WorkflowJson;
	hookPath: string;
}

/**
 * Webhook -> nodes, in a chain (with `splitLeads`, the POST body's `items` become one item each).
 * The webhook answers with the last node's first item only, so the response size (and the work
 * of sending it) stays the same whatever the item count. `saveSuccess: false` keeps n8n from
 * writing big successful executions to its database, which would add the same cost to every
 * client and only blur the comparison.
 */
export function chain(
	name: string,
	nodes: WorkflowNode[],
	options: { splitLeads?: boolean; saveSuccess?: boolean } = {},
): BuiltWorkflow {
	const workflow = chainWorkflow(
		name,
		[webhookTrigger(), ...(options.splitLeads ? [splitOutItems()] : []), ...nodes],
		options.saveSuccess === false ? { saveDataSuccessExecution: 'none' } : {},
	);
	return { workflow, hookPath: webhookPath(workflow) };
}

/** Webhook -> Split Out -> our Import Lead, with a credential for the key at a scaled budget. */
export function ourImportChain(
	id: string,
	target: { baseUrl: string; apiKey: string; requestsPerMinute: number; windowSeconds: number },
	options: { saveSuccess?: boolean } = {},
): BuiltWorkflow & { credential: CredentialJson } {
	const credential = ourCredential(
		id,
		target.baseUrl,
		target.apiKey,
		target.requestsPerMinute,
		target.windowSeconds,
	);
	return {
		credential,
		...chain(id, [ourImportNode(credential)], { splitLeads: true, ...options }),
	};
}
