/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Runs the reliability suite's operations (devkit/reliability/operations.ts) inside a real
 * n8n instead of n8n-core's in-process engine. Those operations build an engine workflow, hand it
 * to the runner they are given and check what comes back; faults.test.ts gives them
 * RealN8nRunner.run, so the very same workflows, inputs and invariant checks go through a real
 * `n8n start` with the package installed from its tarball.
 */
import { randomUUID } from 'crypto';

import type { IDataObject, INodeExecutionData, IRun, IWorkflowBase } from 'n8n-workflow';

import type { Session } from '../../devkit/demo/session';
import { nodeName } from '../../devkit/engine/fixtures';
import type { NodeOutput, TestCredentials, WorkflowResult } from '../../devkit/engine/harness';
import { listCallsOperation } from '../../devkit/reliability/operations';
import {
	readStoredExecutions,
	toWebhookWorkflow,
	type CredentialJson,
	type StoredExecution,
	type WorkflowJson,
} from '../../devkit/n8n';
import { TEST_ITEMS_TYPE } from '../../devkit/workflows';

/** The engine's result shape, plus what n8n stored (the raw text is searched for the key). */
export interface RealN8nResult extends WorkflowResult {
	success: IDataObject[];
	errors: IDataObject[];
	stored: StoredExecution;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The engine workflow as a real n8n can run it. The engine's start node (`test.items`, known only
 * to the engine harness) becomes a Split Out of the same name fed by a Manual Trigger, which the
 * server swaps for a webhook: the items then travel in the webhook body, as in the e2e suite.
 */
export function toRealWorkflow(
	workflow: IWorkflowBase,
	credential: CredentialJson,
): { workflow: WorkflowJson; items: unknown[] } {
	const start = workflow.nodes.find((node) => node.type === TEST_ITEMS_TYPE);
	if (!start) throw new Error(`workflow "${workflow.name}" has no ${TEST_ITEMS_TYPE} node`);
	const items = JSON.parse(String(start.parameters.items ?? '[]')) as unknown[];
	const nodes: WorkflowJson['nodes'] = workflow.nodes.map(
		({ credentials, ...node }): WorkflowJson['nodes'][number] =>
			node.name === start.name
				? {
						id: node.id,
						name: node.name,
						type: 'n8n-nodes-base.splitOut',
						typeVersion: 1,
						position: node.position,
						parameters: { fieldToSplitOut: 'body.items', include: 'noOtherFields', options: {} },
					}
				: {
						...node,
						// The template's credential reference becomes the scenario's credential.
						...(credentials && {
							credentials: { [credential.type]: { id: credential.id, name: credential.name } },
						}),
					},
	);
	nodes.unshift({
		id: 'manual-start',
		name: 'Start',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [-220, 0],
		parameters: {},
	});
	return {
		workflow: {
			name: `real n8n: ${workflow.name}`,
			nodes,
			connections: {
				...workflow.connections,
				Start: { main: [[{ node: start.name, type: 'main', index: 0 }]] },
			},
			settings: { ...workflow.settings },
		},
		items,
	};
}

/**
 * Waits for many stored executions at once. Each read of n8n's database starts a Node 24 child
 * (the sqlite3 addon is built for it), so one read serves every run that is waiting instead of
 * each run polling on its own, which would keep both cores busy and slow n8n down.
 */
class StoredExecutionWaiter {
	private readonly waiting = new Map<
		string,
		{ resolve: (stored: StoredExecution) => void; reject: (error: Error) => void; until: number }
	>();
	private polling = false;

	constructor(private readonly session: Session) {}

	wait(workflowId: string, timeoutMs = 30_000): Promise<StoredExecution> {
		return new Promise((resolve, reject) => {
			this.waiting.set(workflowId, { resolve, reject, until: Date.now() + timeoutMs });
			if (!this.polling) void this.poll();
		});
	}

	private async poll(): Promise<void> {
		this.polling = true;
		try {
			while (this.waiting.size > 0) {
				let executions: StoredExecution[];
				try {
					executions = await readStoredExecutions(this.session.sandbox);
				} catch (error) {
					for (const waiter of this.waiting.values()) waiter.reject(error as Error);
					this.waiting.clear();
					break;
				}
				for (const [workflowId, waiter] of this.waiting) {
					// Newest first: the first one of a workflow is its latest run.
					const latest = executions.find((execution) => execution.workflowId === workflowId);
					if (latest?.data && !['new', 'running', 'waiting'].includes(latest.status)) {
						waiter.resolve(latest);
						this.waiting.delete(workflowId);
					} else if (Date.now() > waiter.until) {
						waiter.reject(new Error(`no finished execution of workflow ${workflowId} stored`));
						this.waiting.delete(workflowId);
					}
				}
				if (this.waiting.size > 0) await sleep(250);
			}
		} finally {
			this.polling = false;
		}
	}
}

/** Deploys each engine workflow to the session's n8n, runs it once and reads what n8n stored. */
export class RealN8nRunner {
	private readonly credentials = new Map<string, Promise<CredentialJson>>();
	private readonly waiter: StoredExecutionWaiter;

	constructor(private readonly session: Session) {
		this.waiter = new StoredExecutionWaiter(session);
	}

	/** One n8n credential per base URL and key (each scenario has its own emulator and key). */
	private credentialFor(data: TestCredentials): Promise<CredentialJson> {
		const slot = `${data.baseUrl} ${data.apiKey}`;
		let credential = this.credentials.get(slot);
		if (!credential) {
			// Its name and id hold no key: both are stored and shown in n8n.
			const json = this.session.credential(`faults-${this.credentials.size + 1}`, data);
			credential = this.session.server.createCredential(json).then(() => json);
			this.credentials.set(slot, credential);
		}
		return credential;
	}

	async run(workflow: IWorkflowBase, credentials: TestCredentials): Promise<RealN8nResult> {
		const { server } = this.session;
		const credential = await this.credentialFor(credentials);
		const real = toRealWorkflow(workflow, credential);
		const hookPath = `faults-${randomUUID()}`;
		const workflowId = await server.deployWorkflow(toWebhookWorkflow(real.workflow, hookPath));
		const answer = await server.callWebhookWhenRegistered(hookPath, { items: real.items });
		// With "On Error: continue (using error output)" n8n answers 200 even when items fail;
		// a 404 means the webhook never got registered, and no execution will ever be stored.
		if (answer.status === 404)
			throw new Error(`the webhook of workflow ${workflowId} was not registered`);
		const stored = await this.waiter.wait(workflowId);
		const data = stored.data!;
		const run = {
			data,
			finished: stored.status === 'success',
			mode: stored.mode,
			status: stored.status,
		} as unknown as IRun;
		const output = (nodeName: string): NodeOutput => {
			const main = data.resultData.runData[nodeName]?.[0]?.data?.main ?? [];
			const items = (index: number) => (main[index] ?? []) as unknown as INodeExecutionData[];
			return { success: items(0), error: items(1) };
		};
		const node = output(nodeName(workflow));
		return {
			run,
			error: run.data.resultData.error,
			output,
			success: node.success.map((item) => item.json),
			errors: node.error.map((item) => item.json),
			stored,
		};
	}
}

/**
 * List Calls with Return All for 2 items over 250 calls: 3 pages each (the API's largest page
 * is 100). The engine matrix's List Calls asks for a Limit and stops at a count; Return All
 * stops only when the API says there is no next page, so a fault on any page must neither end
 * the list early nor repeat it. Named 'List Calls' so the scenarios aim and judge it alike.
 */
export const listAllCalls = listCallsOperation({
	seedCalls: 250,
	items: [{ tag: 'a' }, { tag: 'b' }],
	parameters: { returnAll: true },
	expected: (_, everyCall) => everyCall,
});

/** Runs tasks with at most `limit` of them at a time, in the order they are submitted. */
export function pool(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
	let active = 0;
	const queue: Array<() => void> = [];
	const next = () => {
		if (active >= limit) return;
		const start = queue.shift();
		if (start) {
			active++;
			start();
		}
	};
	return (task) =>
		new Promise((resolve, reject) => {
			queue.push(() => {
				task()
					.then(resolve, reject)
					.finally(() => {
						active--;
						next();
					});
			});
			next();
		});
}
