/**
 * Workflow builders. Every bench workflow starts with a Webhook node (the server runs it on a
 * POST and answers when the last node finishes), so one long-lived n8n runs them all.
 */
import type { CredentialJson, WorkflowJson } from '../../devkit/n8n';
import {
	chainWorkflow,
	credentialJson,
	ourNode,
	parameters,
	splitOutItems,
	webhookPath,
	webhookTrigger,
} from '../../devkit/workflows';

type WorkflowNode = WorkflowJson['nodes'][number];

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
	return ourNode({ name: 'Import Lead', parameters: parameters.importLead(), credential });
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

/** List Calls at the API's largest page. */
export function listCallsNode(credential: CredentialJson, returnAll: boolean): WorkflowNode {
	return ourNode({
		name: 'List Calls',
		parameters: parameters.listCalls(returnAll, 100),
		credential,
	});
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

/** Get Recording with Download on. */
export function getRecordingNode(credential: CredentialJson, callId: string): WorkflowNode {
	return ourNode({
		name: 'Get Recording',
		parameters: parameters.getRecording(callId, true),
		credential,
	});
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
