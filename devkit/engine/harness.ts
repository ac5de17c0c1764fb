/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Runs workflow JSON through n8n-core's real execution engine (`WorkflowExecute`), with our
 * node and credential loaded the way n8n loads them. Only the stores behind n8n's database are
 * replaced: credentials come from the test instead of n8n's encrypted database, and the
 * deduplication store is in memory (deduplicationStore.ts).
 */
import { Container } from '@n8n/di';
import { BinaryDataService, ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	IBinaryData,
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialsHelper,
	IAuthenticate,
	IExecuteData,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowSettings,
	IDataObject,
	INode,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { LeadCallAccessApi } from '../../credentials/LeadCallAccessApi.credentials';
import { LeadCallAccess } from '../../nodes/LeadCallAccess/LeadCallAccess.node';
import { TestItems } from './TestItems.node';
import { ensureDeduplicationService } from './deduplicationStore';

import { CREDENTIAL_TYPE, NODE_TYPE, TEST_ITEMS_TYPE } from '../workflows';

export { NODE_TYPE, TRIGGER_TYPE } from '../workflows';

type Authenticate = Extract<IAuthenticate, (...args: never[]) => unknown>;

const nodeTypesByName: Record<string, INodeType | IVersionedNodeType> = {
	[NODE_TYPE]: new LeadCallAccess(),
	[TEST_ITEMS_TYPE]: new TestItems(),
};
const credentialTypes: Record<string, ICredentialType> = {
	[CREDENTIAL_TYPE]: new LeadCallAccessApi(),
};

/** Lets the trigger's suite add its node without this file knowing about it. */
export function registerNodeType(name: string, nodeType: INodeType): void {
	nodeTypesByName[name] = nodeType;
}

export const nodeTypes: INodeTypes = {
	getByName: (name) => nodeTypesByName[name],
	getByNameAndVersion: (name, version) =>
		NodeHelpers.getVersionedNodeType(nodeTypesByName[name], version),
	getKnownTypes: () => ({}),
};

/** A workflow holding one node of ours, as the editor (load options, subtitles) and the trigger's poller see it. */
export function oneNodeWorkflow(
	node: Pick<INode, 'name' | 'type' | 'typeVersion' | 'parameters'>,
	options: { active?: boolean; staticData?: IDataObject; settings?: IWorkflowSettings } = {},
): { workflow: Workflow; node: INode } {
	const full: INode = {
		id: `${node.name}-id`,
		position: [0, 0],
		credentials: { [CREDENTIAL_TYPE]: { id: '1', name: 'Lead & Call Access account' } },
		...node,
	};
	const workflow = new Workflow({
		id: 'one-node-workflow',
		name: full.name,
		nodes: [full],
		connections: {},
		active: options.active ?? false,
		nodeTypes,
		staticData: options.staticData,
		settings: options.settings,
	});
	return { workflow, node: full };
}

let binaryDataReady: Promise<void> | undefined;
export async function ensureBinaryDataService(): Promise<void> {
	binaryDataReady ??= Container.get(BinaryDataService).init();
	await binaryDataReady;
}

/** The bytes of a binary item, wherever n8n's binary data mode stored them. */
export async function binaryBuffer(binary: IBinaryData): Promise<Buffer> {
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}

export interface TestCredentials {
	baseUrl: string;
	apiKey: string;
	requestsPerMinute?: number;
	/** The credential's hidden window of the rate budget (default 60 s): short in tests. */
	rateWindowSeconds?: number;
}

export function additionalDataFor(
	credentials: TestCredentials,
	hooks?: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	const data = { requestsPerMinute: 0, ...credentials };
	// n8n's credential helper minus the encrypted store: the same `authenticate` path as n8n.
	const credentialsHelper = {
		getParentTypes: () => [],
		isCredentialUsableByNode: () => true,
		getCredentialsProperties: () => [],
		preAuthentication: async () => undefined,
		authenticate: async (
			decrypted: ICredentialDataDecryptedObject,
			typeName: string,
			requestOptions: IHttpRequestOptions,
		) => await (credentialTypes[typeName].authenticate as Authenticate)(decrypted, requestOptions),
		getDecrypted: async (_additionalData: unknown, _nodeCredentials: unknown, type: string) => {
			if (type !== CREDENTIAL_TYPE) throw new Error(`No test credentials of type ${type}`);
			return { ...data };
		},
	} as unknown as ICredentialsHelper;
	return {
		credentialsHelper,
		hooks,
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		variables: {},
		userId: 'test-user',
		setExecutionStatus: () => {},
		getRunExecutionData: async () => undefined,
	} as unknown as IWorkflowExecuteAdditionalData;
}

export interface NodeOutput {
	/** Output 0 (the success branch). */
	success: INodeExecutionData[];
	/** Output 1 when "On Error" is "Continue (using error output)". */
	error: INodeExecutionData[];
}

export interface WorkflowResult {
	run: IRun;
	/** The execution's error when a node stopped the workflow. */
	error: IRun['data']['resultData']['error'];
	output(nodeName: string): NodeOutput;
}

/** Executes a workflow like n8n's manual run: from its first node, to the end. */
export async function runWorkflow(
	workflowData: IWorkflowBase,
	credentials: TestCredentials,
): Promise<WorkflowResult> {
	await ensureBinaryDataService();
	await ensureDeduplicationService();
	const workflow = new Workflow({
		id: workflowData.id ?? 'test',
		name: workflowData.name,
		nodes: workflowData.nodes,
		connections: workflowData.connections,
		nodeTypes,
		settings: workflowData.settings,
		active: false,
	});
	const hooks = new ExecutionLifecycleHooks('manual', 'test-execution', workflowData);
	let resolveRun: (run: IRun) => void = () => {};
	const finished = new Promise<IRun>((resolve) => (resolveRun = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => resolveRun(run));

	const startNode =
		workflowData.nodes.find((node) => node.type === TEST_ITEMS_TYPE) ?? workflowData.nodes[0];
	const start: IExecuteData = {
		node: workflow.getNode(startNode.name)!,
		data: { main: [[{ json: {} }]] },
		source: null,
	};
	const runExecutionData: IRunExecutionData = {
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			metadata: {},
			nodeExecutionStack: [start],
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	} as unknown as IRunExecutionData;

	const execute = new WorkflowExecute(
		additionalDataFor(credentials, hooks),
		'manual',
		runExecutionData,
	);
	await execute.processRunExecutionData(workflow);
	const run = await finished;
	return {
		run,
		error: run.data.resultData.error,
		output(nodeName) {
			const task = run.data.resultData.runData[nodeName]?.[0];
			const main = task?.data?.main ?? [];
			return { success: main[0] ?? [], error: main[1] ?? [] };
		},
	};
}
