/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Every workflow in examples/, imported as a user would (only the file folder and the credential
 * set) into a real n8n with the package installed from its tarball, run against the emulator.
 */
import * as fs from 'fs';
import * as path from 'path';

import {
	exampleCredential,
	EXAMPLE_FILES,
	loadExample,
	deployCrmSyncExample,
	publishMcpExample,
	runExportExample,
	runImportExample,
	runTriggerExample,
	type ExportSummary,
	type ImportSummary,
	type TriggerSummary,
} from '../../devkit/demo/examples';
import { openSession, type Session } from '../../devkit/demo/session';
import { N8N_MAJOR, nodeOutput, readDatabaseText } from '../../devkit/n8n';
import { DEMO_KEYS, recordingBytes } from '../../devkit/emulator';
import { CREDENTIAL_TYPE, NODE_TYPE } from '../../devkit/workflows';

jest.setTimeout(120_000);

// The emulator limits like the real service, only faster; the credential's budget matches it,
// so the examples must run without a single 429.
const RATE = { limit: 600, windowMs: 60_000 };
const MCP_TOKEN = 'mcp-e2e-token-6b1f0c2d9e8a';

// n8n 1.x has no database store for binary data; the filesystem one is its queue-mode choice.
const BINARY_DATA_MODE = N8N_MAJOR >= 2 ? 'database' : 'filesystem';

let session: Session;
beforeAll(async () => {
	session = await openSession({
		emulator: { rateLimit: RATE },
		// The binary data mode of queue-mode installs (traffic.test.ts runs the filesystem one):
		// the downloads must survive n8n's database store on their way to disk.
		env: { N8N_DEFAULT_BINARY_DATA_MODE: BINARY_DATA_MODE },
	});
}, 600_000);
afterAll(async () => {
	await session?.close();
});

const credential = () => exampleCredential(session, DEMO_KEYS.full, RATE.limit);

/** A scheduled example, published as a user imports it: n8n accepts its trigger. */
async function expectPublishes(file: string): Promise<void> {
	const workflowId = await session.server.deployWorkflow(loadExample(file, session.filesDir));
	const stored = await session.server.rest<{ active: boolean }>('GET', `/workflows/${workflowId}`);
	expect(stored.active).toBe(true);
	await session.server.rest('POST', `/workflows/${workflowId}/deactivate`);
}
const apiRequests = (path: string) => session.emulator.requests.filter((r) => r.path === path);

test('the editor gets the node from the tarball, with its credential, tool use and icons', async () => {
	const [node, version1] = await session.server.rest<
		Array<{
			version: number | number[];
			defaultVersion?: number;
			usableAsTool?: boolean;
			credentials?: unknown;
			iconUrl: Record<string, string>;
		}>
	>('POST', '/node-types', {
		nodeInfos: [3, 1].map((version) => ({ name: NODE_TYPE, version })),
	});
	// One description serves every version; new nodes get version 3.
	expect(version1).toEqual(node);
	expect(node.version).toEqual([1, 2, 3]);
	expect(node.defaultVersion).toBe(3);
	expect(node.usableAsTool).toBe(true);
	expect(node.credentials).toEqual([
		{ name: CREDENTIAL_TYPE, required: true, testedBy: 'leadCallAccessApiTest' },
	]);
	expect(Object.keys(node.iconUrl).sort()).toEqual(['dark', 'light']);
	for (const icon of Object.values(node.iconUrl)) {
		const res = await fetch(`${session.server.baseUrl}/${icon}`);
		expect([icon, res.status, res.headers.get('content-type')]).toEqual([
			icon,
			200,
			'image/svg+xml',
		]);
	}
});

describe('import-leads-from-csv.json', () => {
	let result: ImportSummary;
	beforeAll(async () => {
		session.emulator.reset();
		result = await runImportExample(session, credential());
	});

	test('imports the good and the fixable rows, normalised to E.164', () => {
		expect(result.run.run.status).toBe('success');
		expect(result.rows).toHaveLength(8);
		expect(result.imported.map(({ name, phoneE164 }) => [name, phoneE164])).toEqual([
			['Ada Lovelace', '+14155552671'],
			['Grace Hopper', '+14155552672'],
			['Alan Turing', '+442079460958'],
			['Katherine Johnson', '+14155552673'],
			['Edsger Dijkstra', '+31205550199'],
		]);
		expect(result.imported.map((lead) => lead.row)).toEqual([0, 1, 2, 3, 4]);
		const stored = session.emulator.leads.get('+14155552672');
		expect(stored).toMatchObject({ name: 'Grace Hopper', campaign_id: 'spring-webinar' });
	});

	test('rejected rows leave through the error output, paired to their row, with the reason', () => {
		expect(result.rejected).toEqual([
			{
				row: 5,
				name: 'Linus Pauling',
				phone: 'call me maybe',
				reason: expect.stringMatching(/^phone_e164: "call me maybe" contains no digits/),
			},
			{
				row: 6,
				name: 'Marie Curie',
				phone: '',
				reason: 'phone_e164: Field required (the value is empty)',
			},
			{
				row: 7,
				name: 'Nikola Tesla',
				phone: '555-01',
				reason: expect.stringMatching(
					/^phone_e164: "555-01" is not a possible number of United States \(\+1\), the Default Country \(5 digits, its numbers have 10 digits\)/,
				),
			},
		]);
		// n8n merges the input row into each error item, so the next node sees the CSV columns.
		const [first] = nodeOutput(result.run.run, 'Import Lead', 1);
		expect(first.json).toMatchObject({ name: 'Linus Pauling', campaign: 'trade-show' });
		expect(first.json.message).toEqual({
			details: [expect.objectContaining({ loc: ['body', 'phone_e164'], type: 'value_error' })],
		});
	});

	test('a rejected row spends no request; each good row exactly one', () => {
		const posts = apiRequests('/v1/leads');
		expect(posts.map((request) => request.status)).toEqual([201, 201, 201, 201, 201]);
		expect(session.emulator.stats().byStatus['429']).toBeUndefined();
	});

	test('rejected-leads.csv collects the rejected rows with their reasons', () => {
		const csv = fs.readFileSync(result.rejectedFile, 'utf8').replace(/^\uFEFF/, '');
		const lines = csv.trim().split(/\r?\n/);
		expect(lines[0]).toBe('name,phone,campaign,reason');
		expect(lines.slice(1)).toEqual([
			expect.stringMatching(/^Linus Pauling,call me maybe,trade-show,"phone_e164: ""call me/),
			'Marie Curie,,trade-show,phone_e164: Field required (the value is empty)',
			expect.stringMatching(/^Nikola Tesla,555-01,trade-show,"phone_e164: ""555-01"" is not/),
		]);
	});

	test('running it again updates the same leads (upsert by phone)', async () => {
		const again = await runImportExample(session, credential());
		expect(again.imported).toHaveLength(5);
		expect(session.emulator.leads.size).toBe(5);
		expect(session.emulator.leads.get('+14155552671')?.writes).toBe(2);
	});
});

describe('export-recordings.json', () => {
	const RUN = { recorded: 4, missed: 1, processingMs: 2_000, waitMs: 5_000 };
	let result: ExportSummary;
	let calls: ReturnType<typeof session.emulator.addCalls>;
	beforeAll(async () => {
		session.emulator.reset();
		const before = session.emulator.calls.length;
		result = await runExportExample(session, credential(), RUN);
		calls = session.emulator.calls.slice(0, session.emulator.calls.length - before);
	});
	// The emulator's call ids start again after a reset: later suites must not find these files.
	afterAll(() => result?.saved.forEach((file) => fs.rmSync(file.file, { force: true })));

	test('exports each new call once: late recordings with their file, the missed call without', () => {
		expect(result.executions.map((execution) => execution.status)).toEqual(
			result.executions.map(() => 'success'),
		);
		const recorded = calls.filter((call) => call.has_recording).map((call) => call.id);
		const missed = calls.filter((call) => !call.has_recording).map((call) => call.id);
		expect([recorded.length, missed.length]).toEqual([RUN.recorded, RUN.missed]);
		expect([...result.emitted].sort()).toEqual([...recorded, ...missed].sort());
		expect(result.saved.map((file) => file.callId).sort()).toEqual([...recorded].sort());
		expect(result.withoutRecording).toEqual(missed);
		// The recordings were still being processed when the night's check started: it waited for
		// them. Publishing, that one check, and one more that found nothing.
		expect(result.polls).toBe(3);
	});

	test('writes each recording to disk as <call id>.mp3 with the exact bytes', () => {
		for (const file of result.saved) {
			expect(file.file).toBe(path.join(session.filesDir, `${file.callId}.mp3`));
			expect(file.mimeType).toBe('audio/mpeg');
			expect(file.binaryId).toMatch(new RegExp(`^${BINARY_DATA_MODE}`));
			expect(fs.readFileSync(file.file).equals(recordingBytes(file.callId, 32 * 1024))).toBe(true);
		}
	});

	test('the key goes to the API only: never to the file host', () => {
		const files = session.emulator.fileRequests;
		expect(files).toHaveLength(result.saved.length);
		expect(files.every((request) => request.headers.authorization === undefined)).toBe(true);
		expect(files.every((request) => request.status === 200)).toBe(true);
		expect(
			session.emulator.requests.every(
				(request) => request.headers.authorization === `Bearer ${DEMO_KEYS.full}`,
			),
		).toBe(true);
		expect(session.emulator.stats().byStatus['429']).toBeUndefined();
	});
});

describe('sync-crm-contacts.json (Skip Unchanged Leads)', () => {
	test('the next night sends only the changed contact; failing ones are tried again', async () => {
		session.emulator.reset();
		const sync = await deployCrmSyncExample(session, credential());
		const first = await sync.runNight();
		expect(first.run.run.status).toBe('success');
		expect(first.counts).toEqual({ sent: 5, skipped: 0 });
		expect(first.failed.map((contact) => contact.name)).toEqual([
			'Linus Pauling',
			'Marie Curie',
			'Nikola Tesla',
		]);
		expect(apiRequests('/v1/leads')).toHaveLength(5);

		session.emulator.reset();
		const second = await sync.runNight((csv) => csv.replace('Grace Hopper', 'Grace B. Hopper'));
		expect(second.counts).toEqual({ sent: 1, skipped: 4 });
		expect(second.failed).toHaveLength(3);
		expect(apiRequests('/v1/leads').map((request) => JSON.parse(request.body).name)).toEqual([
			'Grace B. Hopper',
		]);

		const third = await sync.runNight((csv) => csv.replace('Grace Hopper', 'Grace B. Hopper'));
		expect(third.counts).toEqual({ sent: 0, skipped: 5 });
		expect(apiRequests('/v1/leads')).toHaveLength(1);
	});

	test('as imported, it publishes with its Schedule Trigger', async () => {
		await expectPublishes(EXAMPLE_FILES.crmSync);
	});
});

describe('ai-agent-tools-mcp.json (n8n as an MCP server, the test as the AI agent)', () => {
	let client: Awaited<ReturnType<typeof publishMcpExample>>['client'];
	beforeAll(async () => {
		session.emulator.reset();
		({ client } = await publishMcpExample(session, credential(), MCP_TOKEN));
	});

	test('exposes the three operations as tools with the $fromAI arguments', async () => {
		const tools = await client.listTools();
		const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
		expect(Object.keys(byName).sort()).toEqual(['Get_Recording', 'Import_Lead', 'List_Calls']);
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
		const calls = await client.callTool('List_Calls', { limit: 3 });
		expect(JSON.parse(calls.text).map((call: { id: string }) => call.id)).toEqual(
			session.emulator.calls.slice(0, 3).map((call) => call.id),
		);
	});

	test('errors reach the agent as readable tool errors', async () => {
		const before = session.emulator.requests.length;
		const badPhone = await client.callTool('Import_Lead', { phone: 'call me maybe' });
		expect(badPhone.isError).toBe(true);
		expect(badPhone.text).toMatch(/phone_e164: "call me maybe" contains no digits/);
		expect(session.emulator.requests.length).toBe(before);

		const missed = session.emulator.calls.find((call) => !call.has_recording)!;
		const noRecording = await client.callTool('Get_Recording', { callId: missed.id });
		expect(noRecording.isError).toBe(true);
		expect(noRecording.text).toMatch(/Recording not found/);
	});

	test('the MCP endpoint refuses a client without the bearer token', async () => {
		const answer = await client.post({ id: 99, method: 'tools/list' }, 'wrong-token');
		expect(answer.status).toBe(403);
	});
});

describe('new-call-recording.json (the trigger)', () => {
	let result: TriggerSummary;
	let added: string[];
	beforeAll(async () => {
		session.emulator.reset();
		const before = new Set(session.emulator.calls.map((call) => call.id));
		result = await runTriggerExample(session, credential());
		added = session.emulator.calls.filter((call) => !before.has(call.id)).map((call) => call.id);
	});

	test('activation runs nothing; each new call runs the workflow once, oldest first', () => {
		expect(result.executionsOnActivation).toBe(0);
		expect(added).toHaveLength(3);
		expect(result.emitted).toEqual([...added].reverse());
		expect(result.executions.every((execution) => execution.status === 'success')).toBe(true);
	});

	test('recordings land on disk as <call id>.mp3; the missed call is skipped', () => {
		const [missed, ...recorded] = added;
		expect(result.saved.map((file) => file.callId)).toEqual([...recorded].reverse());
		for (const file of result.saved) {
			expect(file.file).toBe(path.join(session.filesDir, `${file.callId}.mp3`));
			expect(fs.readFileSync(file.file).equals(recordingBytes(file.callId, 32 * 1024))).toBe(true);
		}
		expect(result.skipped).toEqual([{ callId: missed, error: expect.stringContaining('(404)') }]);
		expect(fs.existsSync(path.join(session.filesDir, `${missed}.mp3`))).toBe(false);
	});
});

test('neither the API key nor the MCP token appears in what n8n stored or logged', async () => {
	const database = await readDatabaseText(session.sandbox);
	const log = session.serverLog();
	expect(database).toContain('Import_Lead');
	for (const secret of [DEMO_KEYS.full, MCP_TOKEN]) {
		expect(database.includes(secret)).toBe(false);
		expect(log.includes(secret)).toBe(false);
	}
});
