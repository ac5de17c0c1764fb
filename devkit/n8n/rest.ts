/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * n8n's internal REST API as the editor uses it, signed in as the harness's owner: credentials,
 * workflows, publishing. `N8nServer` (server.ts) adds the process and running workflows.
 */
import { N8N_MAJOR } from './n8n-install';
import type { CredentialJson, WorkflowJson } from './types';

/** The owner every harness n8n is set up with (the editor test signs in as this user). */
export const OWNER = {
	email: 'e2e-owner@example.com',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Harness-pw1',
};

/** Where n8n stands with publishing (activating) a workflow, in 2.x's terms. */
export interface PublicationStatus {
	status: 'in_progress' | 'published' | 'partial' | 'failed' | 'not_published';
	triggers: Array<{ nodeId: string; status: string; errorMessage: string | null }>;
}

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

export class N8nRest {
	private cookie = '';
	protected credentialIds = new Map<string, string>();

	constructor(readonly baseUrl: string) {}

	/** First start: create the owner (this also logs in). Restart on the same folder: log in. */
	protected async signIn() {
		const post = (route: string, body: unknown) =>
			fetch(`${this.baseUrl}/rest${route}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			});
		let res = await post('/owner/setup', OWNER);
		if (!res.ok) {
			res = await post('/login', { emailOrLdapLoginId: OWNER.email, password: OWNER.password });
		}
		if (!res.ok) throw new Error(`n8n owner login failed: HTTP ${res.status} ${await res.text()}`);
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
		const { name, type, data } = credential;
		const { id } = await this.rest<{ id: string }>('POST', '/credentials', { name, type, data });
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
		// Credentials by the ids n8n assigned them.
		const remap = (ref: { id: string; name: string }) => ({
			...ref,
			id: this.credentialIds.get(ref.id) ?? ref.id,
		});
		const nodes = workflow.nodes.map(({ credentials, ...node }) => ({
			...node,
			credentials:
				credentials &&
				Object.fromEntries(Object.entries(credentials).map(([type, ref]) => [type, remap(ref)])),
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
			const status = 'failed';
			return {
				status,
				triggers: triggers.map(({ id }) => ({ nodeId: id, status, errorMessage: failed[1] })),
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
	 * Creates a data table with text columns, as a user does under Overview › Data tables, in the
	 * owner's project; returns its id, its rows (oldest first) and its Download CSV.
	 */
	async createDataTable(name: string, columns: string[]) {
		const project = await this.rest<{ id: string }>('GET', '/projects/personal');
		const tables = `/projects/${project.id}/data-tables`;
		const { id } = await this.rest<{ id: string }>('POST', tables, {
			name,
			columns: columns.map((column) => ({ name: column, type: 'string' })),
		});
		type Row = Record<string, unknown> & { id: number };
		return {
			id,
			rows: async () => {
				const page = await this.rest<{ data: Row[] }>('GET', `${tables}/${id}/rows?take=50`);
				return page.data.sort((a, b) => a.id - b.id);
			},
			downloadCsv: async () => {
				const route = `${tables}/${id}/download-csv`;
				return (await this.rest<{ csvContent: string }>('GET', route)).csvContent;
			},
		};
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
}

function safeMessage(text: string): string {
	try {
		const message = (JSON.parse(text) as { message?: string }).message;
		return message ? `(${message.slice(0, 300)})` : '';
	} catch {
		return '';
	}
}
