/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Runs the workflows in examples/ exactly as users import them, with only what a user would
 * change themselves substituted: the folder n8n may write to, and a credential pointing at the
 * emulator. The e2e suite asserts on the summaries below; the demo prints them.
 */
import * as fs from 'fs';
import * as path from 'path';

import { NodeHelpers, type INodeTypeDescription } from 'n8n-workflow';

import {
	nodeOutput,
	REPO_DIR,
	type CredentialJson,
	type NodeExecutionItem,
	type ServerRunResult,
	type WorkflowJson,
} from '../n8n';
import { McpClient } from './mcpClient';
import type { Session } from './session';

export const EXAMPLES_DIR = path.join(REPO_DIR, 'examples');
export const EXAMPLE_FILES = {
	importLeads: 'import-leads-from-csv.json',
	exportRecordings: 'export-recordings.json',
	aiTools: 'ai-agent-tools-mcp.json',
} as const;
/** Examples use the Docker image's allowed folder; each run points them at its own. */
export const EXAMPLE_FILES_DIR = '/home/node/.n8n-files';
/** The credential reference every example carries (users pick theirs on import). */
export const EXAMPLE_CREDENTIAL = { id: '1', name: 'Lead & Call Access account' };
export const MCP_CREDENTIAL = { id: '2', name: 'MCP client token' };

/** An example as a user would have it after import, with the file folder set to `filesDir`. */
export function loadExample(file: string, filesDir: string): WorkflowJson {
	const text = fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8');
	// Substituted in the JSON text so that expressions ("=/home/.../{{ ... }}") change too.
	const escaped = JSON.stringify(filesDir).slice(1, -1);
	return JSON.parse(text.split(EXAMPLE_FILES_DIR).join(escaped)) as WorkflowJson;
}

/** Runs on demand what an example schedules: its Schedule Trigger becomes a Manual Trigger. */
export function runnableNow(workflow: WorkflowJson): WorkflowJson {
	const nodes = workflow.nodes.map((node) =>
		node.type === 'n8n-nodes-base.scheduleTrigger'
			? { ...node, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} }
			: node,
	);
	return { ...workflow, nodes };
}

export function exampleCredential(
	session: Session,
	apiKey: string,
	requestsPerMinute: number,
): CredentialJson {
	return session.credential(
		EXAMPLE_CREDENTIAL.id,
		{ apiKey, requestsPerMinute },
		EXAMPLE_CREDENTIAL.name,
	);
}

const pairedIndex = (item: NodeExecutionItem) => (item.pairedItem as { item: number }).item;

export interface ImportSummary {
	run: ServerRunResult;
	rows: Array<Record<string, string>>;
	imported: Array<{ row: number; name: string; phone: string; phoneE164: string; id: string }>;
	rejected: Array<{ row: number; name: string; phone: string; reason: string }>;
	rejectedFile: string;
}

/** import-leads-from-csv.json with the bundled leads.csv. */
export async function runImportExample(
	session: Session,
	credential: CredentialJson,
): Promise<ImportSummary> {
	fs.copyFileSync(path.join(EXAMPLES_DIR, 'leads.csv'), path.join(session.filesDir, 'leads.csv'));
	const rejectedFile = path.join(session.filesDir, 'rejected-leads.csv');
	fs.rmSync(rejectedFile, { force: true });
	const workflow = loadExample(EXAMPLE_FILES.importLeads, session.filesDir);
	const run = await session.server.runWorkflow(workflow, [credential]);
	const rows = nodeOutput(run.run, 'Extract Rows').map(
		(item) => item.json as Record<string, string>,
	);
	// The CSV row an Import Lead output item came from, by its pairing.
	const sourceRow = (item: NodeExecutionItem) => {
		const row = pairedIndex(item);
		return { row, name: String(rows[row]?.name ?? ''), phone: String(rows[row]?.phone ?? '') };
	};
	const imported = nodeOutput(run.run, 'Import Lead', 0).map((item) => ({
		...sourceRow(item),
		phoneE164: String(item.json.phone_e164),
		id: String(item.json.id),
	}));
	const rejected = nodeOutput(run.run, 'Import Lead', 1).map((item) => ({
		...sourceRow(item),
		reason: String(item.json.error),
	}));
	return { run, rows, imported, rejected, rejectedFile };
}

// The recording examples' runners live with their siblings; the demo imports them from here.

/**
 * Publishes ai-agent-tools-mcp.json (n8n becomes an MCP server) and returns a connected client:
 * the caller plays the AI agent.
 */
export async function publishMcpExample(
	session: Session,
	credential: CredentialJson,
	bearerToken: string,
): Promise<{ workflowId: string; client: McpClient }> {
	await session.server.createCredential(credential);
	await session.server.createCredential({
		...MCP_CREDENTIAL,
		type: 'httpBearerAuth',
		data: { token: bearerToken },
	});
	const workflow = loadExample(EXAMPLE_FILES.aiTools, session.filesDir);
	const workflowId = await session.server.deployWorkflow(workflow);
	const trigger = workflow.nodes.find((node) => node.type.endsWith('.mcpTrigger'));
	const client = new McpClient(
		`${session.server.baseUrl}/mcp/${String(trigger?.parameters.path)}`,
		bearerToken,
	);
	await client.initialize();
	return { workflowId, client };
}

/** The example files, as `npm run demo` and the e2e suite find them. */
export const allExampleFiles = () =>
	fs.readdirSync(EXAMPLES_DIR).filter((file) => file.endsWith('.json'));

/**
 * What the editor would flag on each node of an example after import, as n8n's editor works it
 * out: a node type or version this n8n does not have, or a parameter issue (a required value
 * missing, a value not allowed). Credentials are left out: users pick theirs after import.
 */
export async function exampleWarnings(session: Session, file: string): Promise<string[]> {
	const workflow = loadExample(file, session.filesDir);
	const baseType = (type: string) => type.replace(/^(n8n-nodes-lead-call-access\.\w+)Tool$/, '$1');
	const nodes = workflow.nodes.map((node) => ({ ...node, type: baseType(node.type) }));
	const nodeInfos = nodes.map(({ type, typeVersion }) => ({ name: type, version: typeVersion }));
	const descriptions = await session.server.rest<INodeTypeDescription[]>('POST', '/node-types', {
		nodeInfos,
	});
	// n8n answers with the names without their package; a tool (…Tool) is its node's description.
	const known = (type: string, version: number) =>
		descriptions.find(
			(description) =>
				description.name === type.split('.').pop() &&
				[description.version].flat().includes(version),
		);
	return nodes.flatMap((node) => {
		const description = known(node.type, node.typeVersion);
		if (!description) return [`${node.name}: no ${node.type} version ${node.typeVersion}`];
		const asNode = { ...node, parameters: node.parameters as never } as never;
		const parameters = NodeHelpers.getNodeParameters(
			description.properties,
			node.parameters as never,
			true,
			false,
			asNode,
			description,
		);
		const issues = NodeHelpers.getNodeParametersIssues(
			description.properties,
			{ ...(asNode as object), parameters } as never,
			description,
		);
		return issues ? [`${node.name}: ${JSON.stringify(issues.parameters ?? issues)}`] : [];
	});
}
