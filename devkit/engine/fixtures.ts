import type { IDataObject, INode, IWorkflowBase } from 'n8n-workflow';

import type { Emulator, EmulatorOptions, Fault } from '../emulator';
import { DEMO_KEYS, startEmulator } from '../emulator';
import { leads, nodeWorkflow, parameters as operationParameters } from '../workflows';
import type { TestCredentials, WorkflowResult } from './harness';
import { NODE_TYPE, runWorkflow } from './harness';

/** Each operation as an engine test starts it: its node name and the user's usual parameters. */
const templates = {
	importLeads: {
		nodeName: 'Import Lead',
		parameters: () => {
			const importLead = operationParameters.importLead();
			return {
				...importLead,
				additionalFields: { ...importLead.additionalFields, campaignId: '={{ $json.campaign }}' },
			};
		},
	},
	listCalls: { nodeName: 'List Calls', parameters: () => operationParameters.listCalls() },
	getRecording: { nodeName: 'Get Recording', parameters: () => operationParameters.getRecording() },
};

export interface WorkflowSetup {
	/** Items emitted by the start node, i.e. the node's input items. */
	items?: IDataObject[];
	/** Merged over the template's node parameters. */
	parameters?: IDataObject;
	onError?: INode['onError'] | 'stopWorkflow';
}

/** The operation's workflow (Items → node, On Error: continue using error output) with the test's items and parameters. */
export function workflowFrom(
	template: keyof typeof templates,
	setup: WorkflowSetup = {},
): IWorkflowBase {
	const { nodeName, parameters } = templates[template];
	const workflow = nodeWorkflow({
		source: 'items',
		items: setup.items ?? (template === 'listCalls' ? [{}] : []),
		nodeName,
		parameters: { ...parameters(), ...setup.parameters },
		credential: { id: '1', name: 'Lead & Call Access account' },
		onError:
			setup.onError === 'stopWorkflow' ? undefined : (setup.onError ?? 'continueErrorOutput'),
	});
	return workflow as unknown as IWorkflowBase;
}

export function nodeName(workflow: IWorkflowBase): string {
	return workflow.nodes.find((node) => node.type === NODE_TYPE)!.name;
}

export type RunResult = WorkflowResult & { success: IDataObject[]; errors: IDataObject[] };

/** Runs a workflow and returns the node's outputs next to the raw result. */
export async function run(
	workflow: IWorkflowBase,
	credentials: TestCredentials,
): Promise<RunResult> {
	const result = await runWorkflow(workflow, credentials);
	const output = result.output(nodeName(workflow));
	return {
		...result,
		success: output.success.map((item) => item.json),
		errors: output.error.map((item) => item.json),
	};
}

type StatusFault = Extract<Fault, { kind: 'status' }>;

/** Starts an emulator for each test of the calling `describe` and stops it afterwards. */
export function useEmulator(options: EmulatorOptions = {}) {
	let current: Emulator | undefined;
	beforeEach(async () => {
		current = await startEmulator({ rateLimit: false, ...options });
	});
	afterEach(async () => {
		await current?.stop();
		current = undefined;
	});
	const emulator = () => {
		if (!current) throw new Error('emulator not started');
		return current;
	};
	const credentials = (overrides: Partial<TestCredentials> = {}): TestCredentials => ({
		baseUrl: emulator().baseUrl,
		apiKey: DEMO_KEYS.full,
		requestsPerMinute: 0,
		...overrides,
	});
	return {
		emulator,
		credentials,
		/** Import Lead over `items` (a number: that many `leads`), with these Options. */
		importLeads: async (
			items: number | IDataObject[],
			options?: IDataObject,
			overrides?: Partial<TestCredentials>,
		) =>
			await run(
				workflowFrom('importLeads', {
					items: typeof items === 'number' ? leads(items) : items,
					parameters: options && { options },
				}),
				credentials(overrides),
			),
		/** The next `count` lead imports are answered `status` (and the fault's other fields). */
		failLeads: (status: number, count: number, more: Partial<StatusFault> = {}) =>
			emulator().inject({ kind: 'status', status, count, path: '/v1/leads', ...more }),
		/** The bodies of the lead imports the API received. */
		sentLeads: () =>
			emulator()
				.requests.filter((request) => request.path === '/v1/leads')
				.map((request) => JSON.parse(request.body) as IDataObject),
		/** Each request's status, or the fault that took its place ('reset', 'hang'). */
		statuses: () => emulator().requests.map((request) => request.status),
	};
}
