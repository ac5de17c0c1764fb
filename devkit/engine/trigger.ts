/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The "On New Call" polling trigger, driven the way n8n drives it: the node's `poll()` runs in
 * n8n-core's real PollContext over a Workflow that keeps its static data between polls (as
 * n8n's active-workflow manager does), against the API emulator.
 *
 * Executions the trigger starts (`__emit`) are recorded and finish at once, as n8n's would after
 * running the workflow. n8n saves the workflow's static data when an execution is started: so
 * does this class (`saved`). A restart builds a new Workflow from the static data as saved, as
 * n8n does from its database; `killAtExecution` stops "n8n" while an execution runs.
 */
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IRun,
	IWorkflowSettings,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { PollContext } from 'n8n-core';
import { commonPollingParameters } from 'n8n-core/dist/nodes-loader/constants';

import { LeadCallAccessTrigger } from '../../nodes/LeadCallAccessTrigger/LeadCallAccessTrigger.node';
import type { CallRecord, Emulator, EmulatorOptions, RecordedRequest } from '../emulator';
import { DEMO_KEYS, startEmulator } from '../emulator';
import type { TestCredentials } from './harness';
import { NO_SCHEDULED_POLLS } from '../workflows';
import {
	TRIGGER_TYPE,
	additionalDataFor,
	ensureBinaryDataService,
	oneNodeWorkflow,
	registerNodeType,
} from './harness';

/** n8n adds Poll Times to every polling node when it loads it (n8n-core's node loader). */
function loadedTrigger(): INodeType {
	const trigger = new LeadCallAccessTrigger();
	trigger.description.properties.unshift(...commonPollingParameters);
	return trigger;
}

registerNodeType(TRIGGER_TYPE, loadedTrigger());

/**
 * Emulators for the calling test file's trigger tests: `emulatorWith(options)` starts one over
 * `defaults` (no rate limit), `activated` also starts a trigger on it and takes its first poll;
 * every emulator started in a test stops after it.
 */
export function useTriggerEmulators(defaults: EmulatorOptions) {
	// Download Recording stores files as n8n does, in its binary data service.
	beforeAll(ensureBinaryDataService);
	let started: Emulator[] = [];
	afterEach(async () => {
		await Promise.all(started.map(async (emulator) => await emulator.stop()));
		started = [];
	});
	const emulatorWith = async (options: EmulatorOptions = {}) => {
		const emulator = await startEmulator({ rateLimit: false, ...defaults, ...options });
		started.push(emulator);
		return emulator;
	};
	const activated = async (
		options?: EmulatorOptions,
		parameters?: IDataObject,
		settings?: IWorkflowSettings,
	) => {
		const emulator = await emulatorWith(options);
		const trigger = new TriggerUnderTest(emulator, parameters, settings);
		await trigger.poll();
		return { emulator, trigger };
	};
	return { emulatorWith, activated };
}

/** Thrown into the poll when "n8n" is killed while an execution runs. */
class Killed extends Error {}

/** The run n8n hands back when an execution has finished (the fields the trigger reads). */
const runOf = (status: 'success' | 'error') =>
	({
		status,
		mode: 'trigger',
		startedAt: new Date(),
		data: {
			resultData: {
				runData: {},
				...(status === 'error' ? { error: { message: 'Disk full' } } : {}),
			},
		},
	}) as unknown as IRun;

/** One trigger node in one workflow, polled like n8n polls it. */
export class TriggerUnderTest {
	private workflow: Workflow;
	credentials: TestCredentials;
	/** The static data as n8n last saved it (when an execution was started). */
	saved: IDataObject = {};
	/** The items of each execution the last poll started (its returned list included). */
	executions: INodeExecutionData[][] = [];
	/** Set: "n8n" is killed while running the execution of that number (1-based) of the next poll. */
	killAtExecution?: number;
	/** Set: executions whose items it matches fail, as when a node after the trigger fails. */
	failWhen?: (items: INodeExecutionData[]) => boolean;
	/**
	 * Set: from the execution of that number (1-based) of a poll on, n8n starts no run and hands
	 * back none, as for a poll that lost its lease under the durable scheduler.
	 */
	noRunFrom?: number;
	/**
	 * How n8n activated the trigger: 'activate' when published; n8n's durable scheduler runs every
	 * scheduled check as 'update'.
	 */
	activation: WorkflowActivateMode = 'activate';
	/** Set: the poll budget n8n's durable scheduler gives each check (ms); else n8n-core's default. */
	budgetMs?: number;
	/** How long each execution the trigger starts takes to finish (ms). */
	executionMs = 0;

	constructor(
		emulator: Emulator,
		private parameters: IDataObject = {},
		private readonly settings: IWorkflowSettings = {},
	) {
		this.credentials = { baseUrl: emulator.baseUrl, apiKey: DEMO_KEYS.full, requestsPerMinute: 0 };
		this.workflow = this.build({});
	}

	private build(staticData: IDataObject): Workflow {
		return oneNodeWorkflow(
			{
				name: 'On New Call',
				type: TRIGGER_TYPE,
				typeVersion: 1,
				// Poll Times the trigger cannot read a next check from, unless a test sets them.
				parameters: { pollTimes: NO_SCHEDULED_POLLS, ...this.parameters } as INode['parameters'],
			},
			{ active: true, staticData, settings: this.settings },
		).workflow;
	}

	/** Runs one poll; returns the items it emitted, over all the executions it started. */
	async pollItems(mode: WorkflowExecuteMode = 'trigger'): Promise<INodeExecutionData[]> {
		const node = this.workflow.getNode('On New Call')!;
		this.executions = [];
		const emit = (
			data: INodeExecutionData[][],
			_response?: unknown,
			done?: { resolve: (run: IRun | undefined) => void; reject: (error: Error) => void },
		) => {
			this.saved = this.storedState();
			this.executions.push(data[0]);
			const killed = this.executions.length === this.killAtExecution;
			if (killed) this.killAtExecution = undefined;
			const voided = this.noRunFrom !== undefined && this.executions.length >= this.noRunFrom;
			const run = voided ? undefined : this.failWhen?.(data[0]) ? runOf('error') : runOf('success');
			const finish = () => (killed ? done?.reject(new Killed()) : done?.resolve(run));
			if (this.executionMs > 0) setTimeout(finish, this.executionMs);
			else setImmediate(finish);
		};
		const context = new PollContext(
			this.workflow,
			node,
			additionalDataFor(this.credentials),
			mode,
			mode === 'manual' ? 'manual' : this.activation,
			emit,
			undefined,
			undefined,
			undefined,
			undefined,
			this.budgetMs === undefined ? undefined : () => this.budgetMs!,
		);
		const result = await new LeadCallAccessTrigger().poll.call(context);
		if (result !== null) emit(result);
		return this.executions.flat();
	}

	async poll(mode?: WorkflowExecuteMode): Promise<string[]> {
		return (await this.pollItems(mode)).map((item) => String(item.json.id));
	}

	/** The node's static data as it is now (n8n saves it at the next execution). */
	storedState(): IDataObject {
		return JSON.parse(JSON.stringify(this.workflow.staticData)) as IDataObject;
	}

	/** n8n restarts after a clean stop: the workflow is rebuilt with its static data. */
	restart(): void {
		this.workflow = this.build(this.storedState());
	}

	/** The user changes the trigger's parameters and publishes again: its static data stays. */
	reconfigure(parameters: IDataObject): void {
		this.parameters = parameters;
		this.restart();
	}

	/** n8n was killed: the workflow is rebuilt from the static data as n8n last saved it. */
	restartAfterKill(): void {
		this.workflow = this.build(this.saved);
	}
}

/** Ids in the order the trigger emits them, oldest first (the emulator lists newest first). */
export const idsOldestFirst = (calls: CallRecord[]) => calls.map((call) => call.id).reverse();

export const listRequests = (emulator: Emulator) =>
	emulator.requests.filter((request) => request.path === '/v1/calls');

/**
 * Runs `fn` when the API receives a request, before it is answered: the emulator logs each
 * request on arrival, so wrapping the log's push sees it synchronously.
 */
export function onApiRequest(
	emulator: Emulator,
	fn: (request: RecordedRequest, index: number) => void,
) {
	const log = emulator.requests;
	const push = log.push.bind(log);
	let index = 0;
	log.push = (...records: RecordedRequest[]) => {
		const length = push(...records);
		for (const record of records) fn(record, index++);
		return length;
	};
}
