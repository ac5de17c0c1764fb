/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Runs the workflows in examples/ exactly as users import them, with only what a user would
 * change themselves substituted: the folder n8n may write to, and a credential pointing at the
 * emulator. The e2e suites assert on what the runners return; the demo prints it. Runners:
 * leadExamples.ts, recordingExamples.ts; stand-ins for tools out of reach: startingExamples.ts.
 */
import * as fs from 'fs';
import * as path from 'path';

import { NodeHelpers, type INodeTypeDescription } from 'n8n-workflow';

import { REPO_DIR, type CredentialJson, type WorkflowJson } from '../n8n';
import { McpClient } from './mcpClient';
import type { Session } from './session';

export const EXAMPLES_DIR = path.join(REPO_DIR, 'examples');
export const EXAMPLES = {
	importLeads: 'import-leads-from-csv.json',
	exportRecordings: 'export-recordings.json',
	aiTools: 'ai-agent-tools-mcp.json',
	googleSheets: 'import-leads-from-google-sheets.json',
	leadForm: 'lead-form.json',
	hubspotSync: 'sync-hubspot-contacts.json',
	s3: 'save-recordings-to-s3.json',
	googleDrive: 'save-recordings-to-google-drive.json',
} as const;
/** Examples use the Docker image's allowed folder; each run points them at its own. */
export const EXAMPLE_FILES_DIR = '/home/node/.n8n-files';

/** An example as a user would have it after import, with the file folder set to `filesDir`. */
export function loadExample(file: string, filesDir: string): WorkflowJson {
	const text = fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8');
	// Substituted in the JSON text so that expressions ("=/home/.../{{ ... }}") change too.
	const escaped = JSON.stringify(filesDir).slice(1, -1);
	return JSON.parse(text.split(EXAMPLE_FILES_DIR).join(escaped)) as WorkflowJson;
}

/** Runs on demand what an example schedules: its Schedule Trigger becomes a Manual Trigger. */
export function runnableNow(workflow: WorkflowJson): WorkflowJson {
	const manual = { type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} };
	const nodes = workflow.nodes.map((node) =>
		node.type === 'n8n-nodes-base.scheduleTrigger' ? { ...node, ...manual } : node,
	);
	return { ...workflow, nodes };
}

/** The credential every example references (users pick theirs on import). */
export function exampleCredential(
	session: Session,
	apiKey: string,
	requestsPerMinute: number,
): CredentialJson {
	return session.credential('1', { apiKey, requestsPerMinute }, 'Lead & Call Access account');
}

/**
 * Publishes ai-agent-tools-mcp.json (n8n becomes an MCP server) and returns a connected client:
 * the caller plays the AI agent.
 */
export async function publishMcpExample(
	session: Session,
	credential: CredentialJson,
	token: string,
): Promise<{ workflowId: string; client: McpClient }> {
	const { server } = session;
	await server.createCredential(credential);
	const bearer = { id: '2', name: 'MCP client token', type: 'httpBearerAuth', data: { token } };
	await server.createCredential(bearer);
	const workflow = loadExample(EXAMPLES.aiTools, session.filesDir);
	const workflowId = await server.deployWorkflow(workflow);
	const trigger = workflow.nodes.find((node) => node.type.endsWith('.mcpTrigger'));
	const client = new McpClient(`${server.baseUrl}/mcp/${String(trigger?.parameters.path)}`, token);
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
	return nodes.flatMap((node) => {
		// n8n answers with the names without their package; a tool (…Tool) is its node's description.
		const description = descriptions.find(
			({ name, version }) =>
				name === node.type.split('.').pop() && [version].flat().includes(node.typeVersion),
		);
		if (!description) return [`${node.name}: no ${node.type} version ${node.typeVersion}`];
		const asNode = { ...node, parameters: node.parameters as never } as never;
		const { properties } = description;
		const parameters = NodeHelpers.getNodeParameters(
			properties,
			node.parameters as never,
			true,
			false,
			asNode,
			description,
		);
		const withDefaults = { ...(asNode as object), parameters } as never;
		const issues = NodeHelpers.getNodeParametersIssues(properties, withDefaults, description);
		return issues ? [`${node.name}: ${JSON.stringify(issues.parameters ?? issues)}`] : [];
	});
}
