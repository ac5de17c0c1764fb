/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
import { spawn, type ChildProcess } from 'child_process';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import { isFinished, readStoredExecutions, type StoredExecution } from './db';
import { N8N_MAJOR } from './n8n-install';
import type { N8nSandbox } from './sandbox';
import type { CredentialJson, RunData, WorkflowJson } from './types';

/** The owner every harness n8n is set up with (the editor test signs in as this user). */
export const OWNER = {
	email: 'e2e-owner@example.com',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Harness-pw1',
};

export interface ServerRunResult {
	workflowId: string;
	/** HTTP status and parsed body of the webhook call ("respond when last node finishes"). */
	httpStatus: number;
	response: unknown;
	/** What n8n stored for the execution, in the same shape `n8n execute` prints. */
	run: RunData;
	stored: StoredExecution;
}

/** Where n8n stands with publishing (activating) a workflow, in 2.x's terms. */
export interface PublicationStatus {
	status: 'in_progress' | 'published' | 'partial' | 'failed' | 'not_published';
	triggers: Array<{ nodeId: string; status: string; errorMessage: string | null }>;
}

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * One `n8n start` process on 127.0.0.1:<sandbox.port>, driven over its REST API as the owner.
 * Start-up cost is paid once; every workflow run after that is an HTTP call, and concurrent runs
 * share the process (module-level state in a node, e.g. a rate limiter, is shared too).
 */
export class N8nServer {
	readonly baseUrl: string;
	readonly logFile: string;
	private cookie = '';
	private credentialIds = new Map<string, string>();

	private constructor(
		readonly sandbox: N8nSandbox,
		private readonly child: ChildProcess,
	) {
		this.baseUrl = `http://127.0.0.1:${sandbox.port}`;
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

	/** First start: create the owner (this also logs in). Restart on the same folder: log in. */
	private async signIn() {
		const setup = await fetch(`${this.baseUrl}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(OWNER),
		});
		if (setup.ok) return this.keepCookie(setup);
		const login = await fetch(`${this.baseUrl}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }),
		});
		if (!login.ok)
			throw new Error(`n8n owner login failed: HTTP ${login.status} ${await login.text()}`);
		this.keepCookie(login);
	}

	private keepCookie(res: Response) {
		const auth = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (!auth) throw new Error('n8n did not set the n8n-auth cookie');
		this.cookie = auth.split(';')[0];
	}

	/** Internal REST API call as the owner; returns the unwrapped `data`. */
	async rest<T>(method: string, route: string, body?: unknown): Promise<T> {
		const res = await fetch(`${this.baseUrl}/rest${route}`, {
			method,
			headers: { 'content-type': 'application/json', cookie: this.cookie },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		// Error bodies can echo the request (credential data), so only the status is reported.
		if (!res.ok)
			throw new Error(`n8n ${method} /rest${route}: HTTP ${res.status} ${safeMessage(text)}`);
		return (JSON.parse(text) as { data: T }).data;
	}

	/**
	 * Creates the credential through the REST API (as the UI does) and remembers the id n8n
	 * assigned, so workflows referencing `credential.id` are rewritten to it.
	 */
	async createCredential(credential: CredentialJson): Promise<string> {
		const { id } = await this.rest<{ id: string }>('POST', '/credentials', {
			name: credential.name,
			type: credential.type,
			data: credential.data,
		});
		this.credentialIds.set(credential.id, id);
		return id;
	}

	/** The credential test as the editor runs it ("Test" button / save). */
	testCredential(
		credential: Omit<CredentialJson, 'id'> & { id?: string },
	): Promise<CredentialTestResult> {
		const id = credential.id && (this.credentialIds.get(credential.id) ?? credential.id);
		return this.rest('POST', '/credentials/test', { credentials: { ...credential, id } });
	}

	/** Creates and publishes (activates) a workflow; returns its id. */
	async deployWorkflow(workflow: WorkflowJson): Promise<string> {
		const nodes = workflow.nodes.map((node) => ({
			...node,
			credentials: node.credentials && this.remapCredentials(node.credentials),
		}));
		const created = await this.rest<{ id: string; versionId: string }>('POST', '/workflows', {
			name: workflow.name,
			nodes,
			connections: workflow.connections,
			settings: workflow.settings ?? {},
			active: false,
		});
		await this.rest('POST', `/workflows/${created.id}/activate`, { versionId: created.versionId });
		return created.id;
	}

	/**
	 * The publication status once (un)publishing has settled. 2.x publishes through an outbox,
	 * after the REST call returned; 1.x (de)activates within the call (a polling trigger's first
	 * poll included, a failure fails the call), so its status follows from `active`.
	 */
	async publicationStatus(workflowId: string, timeoutMs = 60_000): Promise<PublicationStatus> {
		if (N8N_MAJOR < 2) {
			const { active } = await this.rest<{ active: boolean }>('GET', `/workflows/${workflowId}`);
			return { status: active ? 'published' : 'not_published', triggers: [] };
		}
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const status = await this.rest<PublicationStatus>(
				'GET',
				`/workflows/${workflowId}/publication-status`,
			);
			if (status.status !== 'in_progress') return status;
			if (Date.now() > deadline) throw new Error(`workflow ${workflowId} is still publishing`);
			await new Promise((r) => setTimeout(r, 100));
		}
	}

	/**
	 * Publishes (activates) a stored workflow; resolves with its settled publication status. A
	 * failed activation is a `failed` status on both lines: 2.x reports it there, 1.x answers
	 * the REST call with 400 and the message instead.
	 */
	async activateWorkflow(workflowId: string): Promise<PublicationStatus> {
		const route = `/workflows/${workflowId}`;
		const { versionId, nodes } = await this.rest<{
			versionId: string;
			nodes: Array<{ id: string; type: string }>;
		}>('GET', route);
		try {
			await this.rest('POST', `${route}/activate`, { versionId });
		} catch (error) {
			const failed = /\((There was a problem activating the workflow: .*)\)$/.exec(
				(error as Error).message,
			);
			if (N8N_MAJOR >= 2 || !failed) throw error;
			const triggers = nodes.filter((node) => /trigger$/i.test(node.type));
			return {
				status: 'failed',
				triggers: triggers.map((node) => ({
					nodeId: node.id,
					status: 'failed',
					errorMessage: failed[1],
				})),
			};
		}
		return await this.publicationStatus(workflowId);
	}

	/**
	 * Unpublishes and publishes again: publishing runs one poll of each polling trigger, from the
	 * position in the database, so this is a poll on demand. Fails when that poll fails.
	 */
	async republish(workflowId: string): Promise<void> {
		await this.rest('POST', `/workflows/${workflowId}/deactivate`, {});
		await this.publicationStatus(workflowId);
		const status = await this.activateWorkflow(workflowId);
		if (status.status !== 'published') {
			throw new Error(`poll by publication failed: ${JSON.stringify(status.triggers)}`);
		}
	}

	/**
	 * A manual run as the editor starts it (`POST /workflows/:id/run`, e.g. "Fetch Test Event");
	 * returns the execution id. 1.x runs the workflow the editor sends, 2.x the stored one.
	 */
	async runManually(workflowId: string, payload: Record<string, unknown>): Promise<string> {
		const route = `/workflows/${workflowId}`;
		const workflowData = N8N_MAJOR < 2 ? await this.rest<unknown>('GET', route) : undefined;
		const { executionId } = await this.rest<{ executionId: string }>('POST', `${route}/run`, {
			...payload,
			...(workflowData ? { workflowData } : {}),
		});
		return executionId;
	}

	private remapCredentials(creds: Record<string, { id: string; name: string }>) {
		return Object.fromEntries(
			Object.entries(creds).map(([type, ref]) => [
				type,
				{ ...ref, id: this.credentialIds.get(ref.id) ?? ref.id },
			]),
		);
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

function safeMessage(text: string): string {
	try {
		const message = (JSON.parse(text) as { message?: string }).message;
		return message ? `(${message.slice(0, 300)})` : '';
	} catch {
		return '';
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
