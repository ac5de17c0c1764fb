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

type Key = { emulator: { baseUrl: string }; apiKey: string };

/** Our credential; `rateWindowSeconds` (a hidden field) is the bench's scaled window. */
export function ourCredential(
	id: string,
	{ emulator, apiKey }: Key,
	requestsPerMinute: number,
	rateWindowSeconds = 60,
): CredentialJson {
	const data = { baseUrl: emulator.baseUrl, apiKey, requestsPerMinute, rateWindowSeconds };
	return credentialJson(id, data, `Bench ${id}`);
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
	const field = (name: string, value: string) => ({ name, value });
	const batching = setup === 'batching' && limit;
	return {
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
			headerParameters: { parameters: [field('Authorization', `Bearer ${apiKey}`)] },
			sendBody: true,
			contentType: 'json',
			specifyBody: 'keypair',
			bodyParameters: {
				parameters: [field('phone_e164', '={{ $json.phone }}'), field('name', '={{ $json.name }}')],
			},
			options: batching
				? { batching: { batch: { batchSize: limit.requests, batchInterval: limit.windowMs } } }
				: {},
		},
		// "Retry On Fail" at its maximum: n8n caps maxTries at 5 and waitBetweenTries at 5000 ms.
		...(setup === 'retry' && limit
			? { retryOnFail: true, maxTries: 5, waitBetweenTries: limit.retryWaitMs }
			: {}),
	};
}

export interface BuiltWorkflow {
	workflow: WorkflowJson;
	hookPath: string;
	/** The credential its nodes use, created on deploy if n8n does not have it yet. */
	credential?: CredentialJson;
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
	options: { splitLeads?: boolean; saveSuccess?: boolean; credential?: CredentialJson } = {},
): BuiltWorkflow {
	const workflow = chainWorkflow(
		name,
		[webhookTrigger(), ...(options.splitLeads ? [splitOutItems()] : []), ...nodes],
		options.saveSuccess === false ? { saveDataSuccessExecution: 'none' } : {},
	);
	return { workflow, hookPath: webhookPath(workflow), credential: options.credential };
}

/** Webhook -> Split Out -> our Import Lead, with a credential for the key at a scaled budget. */
export function ourImportChain(
	id: string,
	key: Key,
	budget: { requestsPerMinute: number; windowMs: number },
	options: { saveSuccess?: boolean; skipUnchanged?: boolean } = {},
): BuiltWorkflow {
	const credential = ourCredential(id, key, budget.requestsPerMinute, budget.windowMs / 1000);
	const node = ourImportNode(credential);
	if (options.skipUnchanged !== undefined) {
		node.parameters = { ...node.parameters, options: { skipUnchanged: options.skipUnchanged } };
	}
	return chain(id, [node], { splitLeads: true, saveSuccess: options.saveSuccess, credential });
}
