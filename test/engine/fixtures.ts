import type { IDataObject, INode, IWorkflowBase } from 'n8n-workflow';

import type { Emulator, EmulatorOptions } from '../../devkit/emulator';
import { DEMO_KEYS, startEmulator } from '../../devkit/emulator';
import importLeads from '../workflows/import-leads.json';
import listCalls from '../workflows/list-calls.json';
import getRecording from '../workflows/get-recording.json';
import type { TestCredentials, WorkflowResult } from './harness';
import { NODE_TYPE, runWorkflow } from './harness';

const templates = { importLeads, listCalls, getRecording };

export interface WorkflowSetup {
	/** Items emitted by the start node, i.e. the node's input items. */
	items?: IDataObject[];
	/** Merged over the template's node parameters. */
	parameters?: IDataObject;
	onError?: INode['onError'] | 'stopWorkflow';
}

/** A workflow JSON file from test/workflows with the test's items and parameters filled in. */
export function workflowFrom(
	template: keyof typeof templates,
	setup: WorkflowSetup = {},
): IWorkflowBase {
	const workflow = JSON.parse(JSON.stringify(templates[template])) as IWorkflowBase;
	const start = workflow.nodes.find((node) => node.type === 'test.items')!;
	const node = workflow.nodes.find((candidate) => candidate.type === NODE_TYPE)!;
	if (setup.items) start.parameters.items = JSON.stringify(setup.items);
	node.parameters = { ...node.parameters, ...setup.parameters } as INode['parameters'];
	if (setup.onError === 'stopWorkflow') delete node.onError;
	else if (setup.onError) node.onError = setup.onError;
	return workflow;
}

export function nodeName(workflow: IWorkflowBase): string {
	return workflow.nodes.find((node) => node.type === NODE_TYPE)!.name;
}

/** Runs a workflow and returns the node's outputs next to the raw result. */
export async function run(
	workflow: IWorkflowBase,
	credentials: TestCredentials,
): Promise<WorkflowResult & { success: IDataObject[]; errors: IDataObject[] }> {
	const result = await runWorkflow(workflow, credentials);
	const output = result.output(nodeName(workflow));
	return {
		...result,
		success: output.success.map((item) => item.json),
		errors: output.error.map((item) => item.json),
	};
}

/** Starts an emulator for each test of the calling `describe` and stops it afterwards. */
export function useEmulator(options: EmulatorOptions = {}): {
	emulator: () => Emulator;
	credentials: (overrides?: Partial<TestCredentials>) => TestCredentials;
} {
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
	return {
		emulator,
		credentials: (overrides = {}) => ({
			baseUrl: emulator().baseUrl,
			apiKey: DEMO_KEYS.full,
			requestsPerMinute: 0,
			...overrides,
		}),
	};
}

/** Leads as a form or CRM would send them. */
export function leads(count: number, start = 0): IDataObject[] {
	return Array.from({ length: count }, (_, index) => ({
		phone: `+1415555${String(start + index).padStart(4, '0')}`,
		name: `Lead ${start + index}`,
	}));
}
