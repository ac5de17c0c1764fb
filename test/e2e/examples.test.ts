/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Every workflow in examples/, imported as a user would (only the file folder and the credential
 * set) into a real n8n with the package installed from its tarball, run against the emulator.
 */
import * as fs from 'fs';
import * as path from 'path';

import {
	allExampleFiles,
	exampleCredential,
	exampleWarnings,
	loadExample,
	publishMcpExample,
	runExportExample,
	runImportExample,
	type ExportSummary,
	type ImportSummary,
} from '../../devkit/demo/examples';
import {
	deployHubSpotSyncExample,
	hubSpotContact,
	publishLeadFormExample,
	runGoogleSheetsExample,
	runS3Example,
	STARTING_EXAMPLES,
	type RecordingUploadRun,
} from '../../devkit/demo/startingExamples';
import { startLocalS3, type LocalS3 } from '../../devkit/s3';
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
				reason: expect.stringMatching(/^Phone: "call me maybe" contains no digits/),
			},
			{
				row: 6,
				name: 'Marie Curie',
				phone: '',
				reason: 'Phone is empty: map it to the column or field that holds the phone number',
			},
			{
				row: 7,
				name: 'Nikola Tesla',
				phone: '555-01',
				reason: expect.stringMatching(
					/^Phone: "555-01" is not a possible number of United States \(\+1\), the Default Country \(5 digits, its numbers have 10 digits\)/,
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
			expect.stringMatching(/^Linus Pauling,call me maybe,trade-show,"Phone: ""call me/),
			'Marie Curie,,trade-show,Phone is empty: map it to the column or field that holds the phone number',
			expect.stringMatching(/^Nikola Tesla,555-01,trade-show,"Phone: ""555-01"" is not/),
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

describe('every example', () => {
	for (const file of allExampleFiles()) {
		test(`${file} imports and opens without a warning`, async () => {
			expect(await exampleWarnings(session, file)).toEqual([]);
		});
	}
});

describe('import-leads-from-google-sheets.json (Google Sheets stood in for)', () => {
	const ROWS = [
		{ row_number: 2, phone: '(415) 555-2671', name: 'Ada Lovelace', campaign: 'spring' },
		{ row_number: 3, phone: '14155552672.0', name: 'Grace Hopper', campaign: 'spring' },
		{ row_number: 4, phone: 'call me maybe', name: 'Linus Pauling', campaign: 'spring' },
		{ row_number: 5, phone: 14155552673, name: 'Katherine Johnson', campaign: 'spring' },
	];

	test('writes each row its result: imported, or rejected with the reason', async () => {
		session.emulator.reset();
		const { run, written } = await runGoogleSheetsExample(session, credential(), ROWS);
		expect(run.run.status).toBe('success');
		expect(written).toEqual([
			{ row_number: 2, result: expect.stringMatching(/^imported \d{4}-\d\d-\d\d \d\d:\d\d$/) },
			{ row_number: 3, result: expect.stringMatching(/^imported /) },
			{
				row_number: 4,
				result: expect.stringMatching(/^rejected: Phone: "call me maybe" contains no digits/),
			},
			{ row_number: 5, result: expect.stringMatching(/^imported /) },
		]);
		expect([...session.emulator.leads.keys()].sort()).toEqual([
			'+14155552671',
			'+14155552672',
			'+14155552673',
		]);
	});
});

describe('lead-form.json (n8n Form, published)', () => {
	let submit: (name: string, phone: string) => Promise<string>;
	beforeAll(async () => {
		session.emulator.reset();
		({ submit } = await publishLeadFormExample(session, credential()));
	});

	test('a good number is imported and the person is thanked', async () => {
		expect(await submit('Ada Lovelace', '020 7946 0958')).toContain(
			'Thank you, Ada Lovelace. We will call you soon.',
		);
		expect(session.emulator.leads.get('+442079460958')).toMatchObject({
			name: 'Ada Lovelace',
			campaign_id: 'web-form',
			legal_basis: 'consent',
		});
	});

	test('a number that cannot be read asks the person to check it; nothing is sent', async () => {
		const before = apiRequests('/v1/leads').length;
		expect(await submit('Linus Pauling', 'call me maybe')).toContain(
			'We could not read your phone number. Please go back',
		);
		expect(apiRequests('/v1/leads')).toHaveLength(before);
	});

	test('when the service is down, the person is asked to try again later', async () => {
		session.emulator.inject({ kind: 'status', status: 503, count: 100, path: '/v1/leads' });
		try {
			expect(await submit('Grace Hopper', '+1 415 555 2672')).toContain(
				'Sorry, we could not save your request just now',
			);
		} finally {
			session.emulator.reset();
		}
	});
});

describe('sync-hubspot-contacts.json (HubSpot stood in for; Skip Unchanged Leads)', () => {
	const contacts = [
		hubSpotContact(1, { firstname: 'Ada', lastname: 'Lovelace', phone: '+1 415 555 2671' }),
		hubSpotContact(2, { firstname: 'Grace', lastname: 'Hopper', phone: '(415) 555-2672' }),
		hubSpotContact(3, { firstname: 'Alan', lastname: 'Turing', phone: '+44 20 7946 0958' }),
		hubSpotContact(4, { firstname: 'Linus', lastname: 'Pauling', phone: 'call me maybe' }),
	];

	test('the next night sends only the changed contact; rejected ones fail the run by name', async () => {
		session.emulator.reset();
		const sync = await deployHubSpotSyncExample(session, credential());
		const first = await sync.runNight(contacts);
		expect(first.counts).toEqual({ sent: 3, skipped: 0 });
		expect(first.run.run.status).toBe('error');
		expect(first.failure).toMatch(
			/^1 contact\(s\) were not imported: HubSpot contact 4 \(call me maybe\): Phone: "call me maybe" contains no digits/,
		);
		expect(apiRequests('/v1/leads')).toHaveLength(3);
		expect(session.emulator.leads.get('+14155552672')?.name).toBe('Grace Hopper');

		session.emulator.requests.length = 0;
		const renamed = [...contacts.slice(0, 3)];
		renamed[1] = hubSpotContact(2, {
			firstname: 'Grace B.',
			lastname: 'Hopper',
			phone: '(415) 555-2672',
		});
		const second = await sync.runNight(renamed);
		expect(second.run.run.status).toBe('success');
		expect(second.counts).toEqual({ sent: 1, skipped: 2 });
		expect(apiRequests('/v1/leads').map((request) => JSON.parse(request.body).name)).toEqual([
			'Grace B. Hopper',
		]);
	});

	test('as imported, it publishes with its Schedule Trigger', async () => {
		await expectPublishes(STARTING_EXAMPLES.hubspotSync);
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
		expect(JSON.parse(calls.text).map((call: { id: string }) => call.id)).toEqual(
			session.emulator.calls.slice(0, 3).map((call) => call.id),
		);
	});

	test('errors reach the agent as readable tool errors', async () => {
		const before = session.emulator.requests.length;
		const badPhone = await client.callTool('Import_Lead', { phone: 'call me maybe' });
		expect(badPhone.isError).toBe(true);
		expect(badPhone.text).toMatch(/Phone: "call me maybe" contains no digits/);
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

describe("save-recordings-to-s3.json (to a local S3 server, through n8n's S3 node)", () => {
	let s3: LocalS3;
	let result: RecordingUploadRun;
	let recorded: string[];
	let missed: string[];
	beforeAll(async () => {
		session.emulator.reset();
		s3 = await startLocalS3('e2e-call-recordings');
		result = await runS3Example(session, credential(), s3, {
			waitMs: 3_000,
			addCalls: () => {
				recorded = session.emulator
					.addCalls(2, { status: 'completed', has_recording: true })
					.map((call) => call.id);
				missed = session.emulator
					.addCalls(1, { status: 'missed', has_recording: false })
					.map((call) => call.id);
				return [...recorded, ...missed];
			},
		});
	}, 180_000);
	afterAll(async () => {
		await s3?.stop();
	});

	test('uploads each recording once, with its bytes, into the folder of the day', () => {
		// The day in the workflow's time zone, as $now gives it.
		const day = /^recordings\/(\d{4}-\d\d-\d\d)\//.exec([...result.uploaded.keys()][0])?.[1];
		expect([...result.uploaded.keys()].sort()).toEqual(
			recorded.map((id) => `recordings/${day}/${id}.mp3`).sort(),
		);
		for (const id of recorded) {
			const bytes = result.uploaded.get(`recordings/${day}/${id}.mp3`)!;
			expect(bytes.equals(recordingBytes(id, 32 * 1024))).toBe(true);
		}
		expect(result.executions.every((execution) => execution.status === 'success')).toBe(true);
	});

	test('the missed call goes to Call Without Recording; each call comes once', () => {
		expect(result.withoutRecording).toEqual(missed);
		expect([...result.emitted].sort()).toEqual([...recorded, ...missed].sort());
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
