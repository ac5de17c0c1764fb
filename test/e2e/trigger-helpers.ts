/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The stage for the trigger's real-n8n suite (trigger.test.ts): one long-lived n8n 2.40.7 with
 * the package installed from its tarball, the API emulator in this process, and trigger
 * workflows whose polls the tests drive themselves instead of waiting for n8n's schedule.
 *
 * How a poll is driven: in n8n 2.x publishing (activating) a workflow runs one poll of each
 * polling trigger before the schedule takes over, and emits what it returns like any other
 * poll (mode `trigger`). Unpublishing and publishing again is therefore a poll on demand
 * (~0.6 s); it starts from the position in the database, as n8n does at start-up.
 * Publication goes through n8n's outbox, so it completes after the REST call returns: every
 * step here waits for `/publication-status` to settle.
 */
import * as fs from 'fs';

import { buildAndInstall } from '../../devkit/demo/build';
import {
	createN8nSandbox,
	isFinished,
	readStoredExecutions,
	storedOutput,
	startN8nServer,
	type N8nSandbox,
	type N8nServer,
	type SandboxOptions,
	type StoredExecution,
	type WorkflowJson,
} from '../../devkit/n8n';
import {
	startEmulator,
	type CallRecord,
	type Emulator,
	type EmulatorOptions,
	type RecordedRequest,
} from '../../devkit/emulator';
import { CREDENTIAL_TYPE, TRIGGER_NAME } from '../../devkit/workflows';

export { pollTimesAtSeconds, triggerWorkflow } from '../../devkit/workflows';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** After an execution count is reached, how long to watch for one too many. */
const SETTLE_MS = 750;

/** The parts of the trigger's stored position (position.ts) the suites read. */
interface StoredPosition {
	seenIds: string[];
	heldCalls?: unknown[];
}

export class TriggerStage {
	private deployed: TriggerWorkflow[] = [];

	private constructor(
		readonly sandbox: N8nSandbox,
		public server: N8nServer,
		readonly emulator: Emulator,
	) {}

	/** Builds the package when changed (devkit/demo/build.ts), installs it, starts n8n and the emulator. */
	static async open(
		emulatorOptions: EmulatorOptions,
		sandboxOptions: SandboxOptions = {},
	): Promise<TriggerStage> {
		const sandbox = await createN8nSandbox(sandboxOptions);
		let server: N8nServer | undefined;
		try {
			await buildAndInstall(sandbox.userFolder);
			server = await startN8nServer(sandbox);
			return new TriggerStage(sandbox, server, await startEmulator(emulatorOptions));
		} catch (error) {
			await server?.stop();
			sandbox.cleanup();
			throw error;
		}
	}

	/** Creates a Lead & Call Access credential for the stage's emulator; returns its id. */
	async createCredential(name: string, apiKey: string, requestsPerMinute = 0): Promise<string> {
		const data = { baseUrl: this.emulator.baseUrl, apiKey, requestsPerMinute };
		return await this.server.createCredential({ id: name, name, type: CREDENTIAL_TYPE, data });
	}

	/** Edits the credential's key, as a user does after revoking or fixing it. */
	async setApiKey(credentialId: string, name: string, apiKey: string): Promise<void> {
		await this.server.rest('PATCH', `/credentials/${credentialId}`, {
			name,
			type: CREDENTIAL_TYPE,
			data: { baseUrl: this.emulator.baseUrl, apiKey, requestsPerMinute: 0 },
		});
	}

	/** Creates and publishes a workflow; resolves once its activation poll has run. */
	async deploy(workflow: WorkflowJson): Promise<TriggerWorkflow> {
		const deployed = new TriggerWorkflow(this, await this.server.deployWorkflow(workflow));
		this.deployed.push(deployed);
		await this.server.publicationStatus(deployed.id);
		return deployed;
	}

	/** Unpublishes what the last test published, so no schedule or restart polls it again. */
	async unpublishAll(): Promise<void> {
		const deployed = this.deployed;
		this.deployed = [];
		for (const workflow of deployed) await workflow.deactivate();
	}

	/** Stops n8n, runs `whileDown`, and starts it again on the same user folder and database. */
	async restart(whileDown: () => void | Promise<void> = () => {}): Promise<void> {
		await this.server.stop();
		await whileDown();
		this.server = await startN8nServer(this.sandbox);
	}

	serverLog(): string {
		return fs.existsSync(this.server.logFile) ? fs.readFileSync(this.server.logFile, 'utf8') : '';
	}

	async close(): Promise<void> {
		await this.server.stop();
		await this.emulator.stop();
		this.sandbox.cleanup();
	}
}

export class TriggerWorkflow {
	constructor(
		private readonly stage: TriggerStage,
		readonly id: string,
	) {}

	async deactivate(): Promise<void> {
		await this.stage.server.rest('POST', `/workflows/${this.id}/deactivate`, {});
		await this.stage.server.publicationStatus(this.id);
	}

	/** One poll, now: unpublish and publish again. Fails when the poll (activation) fails. */
	async poll(): Promise<void> {
		await this.stage.server.republish(this.id);
	}

	/** The trigger's position as n8n stored it in the workflow's static data. */
	async position(): Promise<StoredPosition | undefined> {
		const route = `/workflows/${this.id}`;
		const { staticData } = await this.stage.server.rest<{ staticData?: object }>('GET', route);
		const node = (staticData as Record<string, { position?: StoredPosition }>)?.[
			`node:${TRIGGER_NAME}`
		];
		return node?.position;
	}

	/**
	 * Finished executions of this workflow, oldest first; without the one a check that emitted
	 * calls ends with (no calls: it is how n8n saves the trigger's position, see deliver.ts).
	 */
	async executions(): Promise<StoredExecution[]> {
		const all = await readStoredExecutions(this.stage.sandbox, this.id);
		const closing = (execution: StoredExecution) =>
			execution.status === 'success' && outputItems(execution).length === 0;
		return all.filter((execution) => isFinished(execution) && !closing(execution)).reverse();
	}

	/**
	 * Waits for `count` finished executions, then a moment longer so that one too many (a call
	 * emitted twice) is caught as well; returns them all, oldest first.
	 */
	async waitForExecutions(count: number, timeoutMs = 30_000): Promise<StoredExecution[]> {
		const deadline = Date.now() + timeoutMs;
		while ((await this.executions()).length < count) {
			if (Date.now() > deadline) {
				const have = (await this.executions()).length;
				throw new Error(`workflow ${this.id}: ${have} finished executions, expected ${count}`);
			}
			await sleep(200);
		}
		await sleep(SETTLE_MS);
		return await this.executions();
	}

	/**
	 * "Fetch Test Event": a manual run of the trigger node alone through the REST route the
	 * editor runs nodes with (mode `manual`); resolves with the finished manual execution.
	 */
	async fetchTestEvent(): Promise<StoredExecution> {
		const executionId = await this.stage.server.runManually(this.id, {
			triggerToStartFrom: { name: TRIGGER_NAME },
			destinationNode: { nodeName: TRIGGER_NAME, mode: 'inclusive' },
		});
		const deadline = Date.now() + 30_000;
		for (;;) {
			const execution = (await this.executions()).find((e) => String(e.id) === executionId);
			if (execution) return execution;
			if (Date.now() > deadline) throw new Error(`manual execution ${executionId} not stored`);
			await sleep(200);
		}
	}
}

/** Items a node output in a stored execution (default: the trigger, main output). */
export const outputItems = (execution: StoredExecution, nodeName = TRIGGER_NAME, outputIndex = 0) =>
	storedOutput(execution, nodeName, outputIndex);

/**
 * Call ids the trigger emitted in an execution, in emitting order. An execution n8n was killed in
 * is recovered at start-up with a placeholder item per node (`isArtificialRecoveredEventItem`,
 * n8n's ExecutionRecoveryService): nothing the trigger emitted.
 */
export const emittedIds = (execution: StoredExecution): string[] =>
	outputItems(execution)
		.filter((item) => item.json.isArtificialRecoveredEventItem !== true)
		.map((item) => String(item.json.id));

/** Ids in the order the trigger emits them, oldest first (addCalls returns newest first). */
export const oldestFirst = (calls: CallRecord[]): string[] =>
	calls.map((call) => call.id).reverse();

/** The calls-list requests the API received since `mark` (an index into `emulator.requests`). */
export const listRequestsSince = (emulator: Emulator, mark: number): RecordedRequest[] =>
	emulator.requests.slice(mark).filter((request) => request.path === '/v1/calls');
