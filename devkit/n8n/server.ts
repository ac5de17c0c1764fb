/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * One `n8n start` process on 127.0.0.1:<sandbox.port>, driven over its REST API as the owner
 * (rest.ts). Start-up cost is paid once; every workflow run after that is an HTTP call, and
 * concurrent runs share the process (module-level state in a node, e.g. a rate limiter, is
 * shared too).
 */
import { randomUUID } from 'crypto';
import * as path from 'path';

import { isFinished, readStoredExecutions, type StoredExecution } from './db';
import { ChildService } from './process';
import { N8nRest } from './rest';
import type { N8nSandbox } from './sandbox';
import type { CredentialJson, RunData, WorkflowJson } from './types';

export { OWNER, type PublicationStatus } from './rest';

export interface ServerRunResult {
	workflowId: string;
	/** HTTP status and parsed body of the webhook call ("respond when last node finishes"). */
	httpStatus: number;
	response: unknown;
	/** What n8n stored for the execution, in the same shape `n8n execute` prints. */
	run: RunData;
	stored: StoredExecution;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class N8nServer extends N8nRest {
	private constructor(
		readonly sandbox: N8nSandbox,
		private readonly service: ChildService,
	) {
		super(`http://127.0.0.1:${sandbox.port}`);
	}

	get logFile(): string {
		return this.service.logFile;
	}

	static async start(sandbox: N8nSandbox, timeoutMs = 120_000): Promise<N8nServer> {
		const service = ChildService.spawn(
			'n8n start',
			sandbox.install.node24Path,
			[sandbox.install.n8nBin, 'start'],
			{
				logFile: path.join(sandbox.userFolder, 'n8n-server.log'),
				cwd: sandbox.userFolder,
				env: { ...sandbox.env, N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5' },
			},
		);
		const server = new N8nServer(sandbox, service);
		try {
			// 1.x reports ready once the database is migrated, before its REST routes exist:
			// wait for one of them too (the settings the editor loads before signing in).
			const ok = async (route: string) => (await fetch(`${server.baseUrl}${route}`)).ok;
			await service.waitUntil(
				async () => (await ok('/healthz/readiness')) && (await ok('/rest/settings')),
				timeoutMs,
			);
			await server.signIn();
		} catch (err) {
			await server.stop();
			throw err;
		}
		return server;
	}

	/** POSTs to a production webhook of an active workflow. */
	async callWebhook(webhookPath: string, body: unknown = {}) {
		const res = await fetch(`${this.baseUrl}/webhook/${webhookPath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		const text = await res.text();
		try {
			return { status: res.status, body: JSON.parse(text) as unknown };
		} catch {
			return { status: res.status, body: text as unknown };
		}
	}

	/**
	 * Activation registers webhooks asynchronously in 2.x (publication outbox), so the first calls
	 * can get 404 "webhook is not registered". A 404 starts no execution, so retrying is safe.
	 */
	async callWebhookWhenRegistered(webhookPath: string, body: unknown = {}, timeoutMs = 20_000) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const res = await this.callWebhook(webhookPath, body);
			const unknown = res.status === 404 && JSON.stringify(res.body).includes('not registered');
			if (!unknown || Date.now() > deadline) return res;
			await sleep(100);
		}
	}

	/**
	 * Runs a Manual-Trigger workflow: the trigger is swapped for a Webhook node of the same name
	 * that answers when the last node finishes with all its items. Differences from a manual run:
	 * the trigger emits one item {headers, params, query, body, webhookUrl, executionMode}
	 * instead of `{}` (body = `input`), and the stored mode is `webhook`. Credentials are created
	 * first (ids remapped).
	 */
	async runWorkflow(
		workflow: WorkflowJson,
		credentials: CredentialJson[] = [],
		input: unknown = {},
	): Promise<ServerRunResult> {
		return await (await this.deployRunnable(workflow, credentials)).run(input);
	}

	/**
	 * Deploys a Manual-Trigger workflow as `runWorkflow` does, once, to run it several times: the
	 * runs share what n8n keeps per workflow (static data, the deduplication store).
	 */
	async deployRunnable(workflow: WorkflowJson, credentials: CredentialJson[] = []) {
		for (const credential of credentials) {
			if (!this.credentialIds.has(credential.id)) await this.createCredential(credential);
		}
		const hookPath = randomUUID();
		const workflowId = await this.deployWorkflow(toWebhookWorkflow(workflow, hookPath));
		let runs = 0;
		const run = async (input: unknown = {}): Promise<ServerRunResult> => {
			const { status, body } = await this.callWebhookWhenRegistered(hookPath, input);
			const stored = await this.waitForExecution(workflowId, 30_000, ++runs);
			const data: RunData = {
				status: stored.status,
				mode: stored.mode,
				finished: stored.status === 'success',
				data: stored.data as RunData['data'],
			};
			return { workflowId, httpStatus: status, response: body, run: data, stored };
		};
		return { workflowId, run };
	}

	/** The latest stored execution of a workflow once n8n has finished `count` of them. */
	async waitForExecution(workflowId: string, timeoutMs = 30_000, count = 1) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const executions = await readStoredExecutions(this.sandbox, workflowId);
			const [latest] = executions;
			if (latest && isFinished(latest) && executions.length >= count) return latest;
			if (Date.now() > deadline) throw new Error(`no finished execution of ${workflowId} stored`);
			await sleep(200);
		}
	}

	/** SIGKILL, as a crash or the OOM killer ends n8n: no graceful shutdown, nothing finished. */
	kill(): Promise<void> {
		return this.service.stop('SIGKILL');
	}

	/** SIGTERM, then SIGKILL if n8n has not exited after `graceMs`. */
	stop(graceMs = 15_000): Promise<void> {
		return this.service.stop('SIGTERM', graceMs);
	}
}

/** Replaces the Manual Trigger by a Webhook node with the same name (connections unchanged). */
export function toWebhookWorkflow(workflow: WorkflowJson, hookPath: string): WorkflowJson {
	const triggers = workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.manualTrigger');
	if (triggers.length !== 1)
		throw new Error(`expected one Manual Trigger, found ${triggers.length}`);
	const parameters = {
		httpMethod: 'POST',
		path: hookPath,
		responseMode: 'lastNode',
		responseData: 'allEntries',
		options: {},
	};
	const webhook = {
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: hookPath,
		parameters,
	};
	const nodes = workflow.nodes.map((node) => {
		if (node !== triggers[0]) return node;
		return { id: node.id, name: node.name, position: node.position, ...webhook };
	});
	return { ...workflow, nodes };
}

/** Starts n8n on a sandbox. Call `stop()` in afterAll. */
export function startN8nServer(sandbox: N8nSandbox, timeoutMs?: number): Promise<N8nServer> {
	return N8nServer.start(sandbox, timeoutMs);
}
