/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * One `n8n start` process on 127.0.0.1:<sandbox.port>, driven over its REST API as the owner
 * (rest.ts). Start-up cost is paid once; every workflow run after that is an HTTP call, and
 * concurrent runs share the process (module-level state in a node, e.g. a rate limiter, is
 * shared too).
 */
import { spawn, type ChildProcess } from 'child_process';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import { isFinished, readStoredExecutions, type StoredExecution } from './db';
import { N8nRest } from './rest';
import type { N8nSandbox } from './sandbox';
import type { CredentialJson, RunData, WorkflowJson } from './types';

export { OWNER, type CredentialTestResult, type PublicationStatus } from './rest';

export interface ServerRunResult {
	workflowId: string;
	/** HTTP status and parsed body of the webhook call ("respond when last node finishes"). */
	httpStatus: number;
	response: unknown;
	/** What n8n stored for the execution, in the same shape `n8n execute` prints. */
	run: RunData;
	stored: StoredExecution;
}

export class N8nServer extends N8nRest {
	readonly logFile: string;

	private constructor(
		readonly sandbox: N8nSandbox,
		private readonly child: ChildProcess,
	) {
		super(`http://127.0.0.1:${sandbox.port}`);
		this.logFile = path.join(sandbox.userFolder, 'n8n-server.log');
	}

	static async start(sandbox: N8nSandbox, timeoutMs = 120_000): Promise<N8nServer> {
		const log = fs.openSync(path.join(sandbox.userFolder, 'n8n-server.log'), 'a');
		const child = spawn(sandbox.install.node24Path, [sandbox.install.n8nBin, 'start'], {
			cwd: sandbox.userFolder,
			env: { ...sandbox.env, N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5' },
			stdio: ['ignore', log, log],
		});
		fs.closeSync(log);
		const server = new N8nServer(sandbox, child);
		try {
			await server.waitUntilReady(timeoutMs);
			await server.signIn();
		} catch (err) {
			await server.stop();
			throw err;
		}
		return server;
	}

	private async waitUntilReady(timeoutMs: number) {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			if (this.child.exitCode !== null) {
				throw new Error(`n8n start exited with ${this.child.exitCode}; see ${this.logFile}`);
			}
			try {
				// 1.x reports ready once the database is migrated, before its REST routes exist:
				// wait for one of them too (the settings the editor loads before signing in).
				const ready = await fetch(`${this.baseUrl}/healthz/readiness`);
				if (ready.ok && (await fetch(`${this.baseUrl}/rest/settings`)).ok) return;
			} catch {
				// not listening yet
			}
			await new Promise((r) => setTimeout(r, 250));
		}
		throw new Error(`n8n did not become ready within ${timeoutMs} ms; see ${this.logFile}`);
	}

	/** POSTs to a production webhook of an active workflow. */
	async callWebhook(
		webhookPath: string,
		body: unknown = {},
	): Promise<{ status: number; body: unknown }> {
		const res = await fetch(`${this.baseUrl}/webhook/${webhookPath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		const text = await res.text();
		let parsed: unknown = text;
		try {
			parsed = JSON.parse(text);
		} catch {
			// keep text
		}
		return { status: res.status, body: parsed };
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
			await new Promise((r) => setTimeout(r, 100));
		}
	}

	/**
	 * Runs a Manual-Trigger workflow (the same JSON `runWorkflow` of cli.ts takes): the trigger is
	 * swapped for a Webhook node of the same name that answers when the last node finishes with
	 * all its items. Differences from `n8n execute`: the trigger emits one item
	 * {headers, params, query, body, webhookUrl, executionMode} instead of `{}` (body = `input`),
	 * and the stored mode is `webhook`. Credentials are created first (ids remapped).
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
	async deployRunnable(
		workflow: WorkflowJson,
		credentials: CredentialJson[] = [],
	): Promise<{ workflowId: string; run(input?: unknown): Promise<ServerRunResult> }> {
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

	/** The stored execution of a workflow once n8n has finished writing it. */
	async waitForExecution(
		workflowId: string,
		timeoutMs = 30_000,
		/** How many executions of the workflow there must be (the latest is returned). */
		count = 1,
	): Promise<StoredExecution> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const executions = await readStoredExecutions(this.sandbox, workflowId);
			const [latest] = executions;
			if (latest && isFinished(latest) && executions.length >= count) return latest;
			if (Date.now() > deadline) throw new Error(`no finished execution of ${workflowId} stored`);
			await new Promise((r) => setTimeout(r, 200));
		}
	}

	/** SIGKILL, as a crash or the OOM killer ends n8n: no graceful shutdown, nothing finished. */
	async kill(): Promise<void> {
		if (this.child.exitCode !== null || this.child.signalCode !== null) return;
		const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
		this.child.kill('SIGKILL');
		await exited;
	}

	/** SIGTERM, then SIGKILL if n8n has not exited after `graceMs`. */
	async stop(graceMs = 15_000): Promise<void> {
		if (this.child.exitCode !== null || this.child.signalCode !== null) return;
		const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
		this.child.kill('SIGTERM');
		const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
		await exited;
		clearTimeout(timer);
	}
}

/** Replaces every Manual Trigger by a Webhook node with the same name (connections unchanged). */
export function toWebhookWorkflow(workflow: WorkflowJson, hookPath: string): WorkflowJson {
	let replaced = 0;
	const nodes = workflow.nodes.map((node) => {
		if (node.type !== 'n8n-nodes-base.manualTrigger') return node;
		replaced++;
		return {
			id: node.id,
			name: node.name,
			position: node.position,
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: hookPath,
			parameters: {
				httpMethod: 'POST',
				path: hookPath,
				responseMode: 'lastNode',
				responseData: 'allEntries',
				options: {},
			},
		};
	});
	if (replaced !== 1) throw new Error(`expected exactly one Manual Trigger, found ${replaced}`);
	return { ...workflow, nodes };
}

/** Convenience: start a server on a sandbox. Call `stop()` in afterAll. */
export function startN8nServer(sandbox: N8nSandbox, timeoutMs?: number): Promise<N8nServer> {
	return N8nServer.start(sandbox, timeoutMs);
}
