/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Every workflow in examples/, imported as a user would (only the file folder and the credential
 * set) into a real n8n with the package installed from its tarball, run against the emulator.
 */
import { allExampleFiles, exampleWarnings, publishMcpExample } from '../../devkit/demo/examples';
import { DEMO_KEYS } from '../../devkit/emulator';
import { readDatabaseText } from '../../devkit/n8n';
import { CREDENTIAL_TYPE, NODE_TYPE } from '../../devkit/workflows';
import { useExamplesSession } from './examples-kit';

jest.setTimeout(120_000);

const MCP_TOKEN = 'mcp-e2e-token-6b1f0c2d9e8a';

const examples = useExamplesSession();
const { credential } = examples;
const emulator = () => examples.session().emulator;

test('the editor gets the node from the tarball, with its credential, tool use and icons', async () => {
	const { server } = examples.session();
	const nodeInfos = [3, 1].map((version) => ({ name: NODE_TYPE, version }));
	const [node, version1] = await server.rest<Array<{ iconUrl: Record<string, string> }>>(
		'POST',
		'/node-types',
		{ nodeInfos },
	);
	// One description serves every version; new nodes get version 3.
	expect(version1).toEqual(node);
	expect(node).toEqual(
		expect.objectContaining({
			version: [1, 2, 3],
			defaultVersion: 3,
			usableAsTool: true,
			credentials: [{ name: CREDENTIAL_TYPE, required: true, testedBy: 'leadCallAccessApiTest' }],
		}),
	);
	expect(Object.keys(node.iconUrl).sort()).toEqual(['dark', 'light']);
	for (const icon of Object.values(node.iconUrl)) {
		const res = await fetch(`${server.baseUrl}/${icon}`);
		const answer = [icon, res.status, res.headers.get('content-type')];
		expect(answer).toEqual([icon, 200, 'image/svg+xml']);
	}
});

// What a user picks after import, as the example's note says: the editor marks it until then,
// and will not publish the workflow before (their own data table has an id only they know).
const TO_PICK_AFTER_IMPORT: Record<string, string[]> = {
	'lead-form.json': [
		'Keep the Answer: {"dataTableId":["Parameter \\"Data table\\" is required."]}',
	],
};

describe('every example', () => {
	for (const file of allExampleFiles()) {
		test(`${file} imports and opens without a warning but what its note says to pick`, async () => {
			const warnings = await exampleWarnings(examples.session(), file);
			expect(warnings).toEqual(TO_PICK_AFTER_IMPORT[file] ?? []);
		});
	}
});

describe('ai-agent-tools-mcp.json (n8n as an MCP server, the test as the AI agent)', () => {
	let client: Awaited<ReturnType<typeof publishMcpExample>>['client'];
	beforeAll(async () => {
		emulator().reset();
		({ client } = await publishMcpExample(examples.session(), credential(), MCP_TOKEN));
	});

	test('exposes the three operations as tools with the $fromAI arguments', async () => {
		const tools = await client.listTools();
		const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
		expect(Object.keys(byName).sort()).toEqual(['Get_Many_Calls', 'Get_Recording', 'Import_Lead']);
		expect(byName.Import_Lead.inputSchema.required).toEqual(['phone']);
		expect(Object.keys(byName.Import_Lead.inputSchema.properties ?? {})).toEqual(['phone', 'name']);
		expect(byName.Get_Recording.inputSchema.required).toEqual(['callId']);
	});

	test('a tool call imports a lead; another lists calls', async () => {
		const imported = await client.callTool('Import_Lead', { phone: '+14155550123', name: 'Ada' });
		expect(imported.isError).toBe(false);
		expect(JSON.parse(imported.text)).toEqual([
			expect.objectContaining({ phone_e164: '+14155550123', name: 'Ada', created: true }),
		]);
		const calls = await client.callTool('Get_Many_Calls', { limit: 3 });
		const ids = emulator()
			.calls.slice(0, 3)
			.map((call) => call.id);
		expect(JSON.parse(calls.text).map((call: { id: string }) => call.id)).toEqual(ids);
	});

	test('errors reach the agent as readable tool errors', async () => {
		const before = emulator().requests.length;
		const badPhone = await client.callTool('Import_Lead', { phone: 'call me maybe' });
		expect(badPhone.isError).toBe(true);
		expect(badPhone.text).toMatch(/Phone: "call me maybe" contains no digits/);
		expect(emulator().requests.length).toBe(before);

		const missed = emulator().calls.find((call) => !call.has_recording)!;
		const noRecording = await client.callTool('Get_Recording', { callId: missed.id });
		expect(noRecording.isError).toBe(true);
		expect(noRecording.text).toMatch(/Recording not found/);
	});

	test('the MCP endpoint refuses a client without the bearer token', async () => {
		const answer = await client.post({ id: 99, method: 'tools/list' }, 'wrong-token');
		expect(answer.status).toBe(403);
	});
});

test('neither the API key nor the MCP token appears in what n8n stored or logged', async () => {
	const database = await readDatabaseText(examples.session().sandbox);
	const log = examples.session().serverLog();
	expect(database).toContain('Import_Lead');
	for (const secret of [DEMO_KEYS.full, MCP_TOKEN]) {
		expect(database.includes(secret)).toBe(false);
		expect(log.includes(secret)).toBe(false);
	}
});
