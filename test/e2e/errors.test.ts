/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-hardcoded-secrets -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Errors as a real n8n (1.x and 2.x: LCA_N8N_VERSION) routes, stores and shows them: error
 * output and pairedItem, the HTTP status to branch on, no item sent after a stop,
 * 422 on the right item, 401/403, the credential test from the editor, and the API key kept
 * out of everything n8n writes (database and log, at debug level).
 */
import { openSession, type Session } from '../../devkit/demo/session';
import {
	NODE_NAME,
	parameters,
	nodeWorkflow,
	pairedLookupNode,
	withItems,
} from '../../devkit/workflows';
import {
	nodeOutput,
	readDatabaseText,
	type CredentialJson,
	type NodeExecutionItem,
	type WorkflowJson,
} from '../../devkit/n8n';
import { DEMO_KEYS } from '../../devkit/emulator';

const importLead = parameters.importLead;

jest.setTimeout(120_000);

// Well-formed but unknown to the API, and malformed: both must stay out of n8n's records too.
const UNKNOWN_KEY = `pf_live_e2eUnknownKey_${'x'.repeat(29)}`;
const MALFORMED_KEY = 'pf_live_e2eMalformedKey';

let session: Session;
beforeAll(async () => {
	session = await openSession({
		emulator: { rateLimit: false },
		// Debug logging is where a careless node or helper would print request options.
		env: { N8N_LOG_LEVEL: 'debug' },
	});
}, 600_000);
afterAll(async () => {
	await session?.close();
});
beforeEach(() => session.emulator.reset());

const credentials = new Map<string, CredentialJson>();
/** One n8n credential per key and base URL, created on first use; its name holds no key. */
function credentialFor(apiKey: string, baseUrl?: string): CredentialJson {
	const slot = `${apiKey} ${baseUrl ?? ''}`;
	if (!credentials.has(slot)) {
		credentials.set(slot, session.credential(`key-${credentials.size + 1}`, { apiKey, baseUrl }));
	}
	return credentials.get(slot)!;
}

/** Where a secret (or its middle part) shows up, with a little context; undefined if nowhere. */
function leakOf(text: string, key: string): string | undefined {
	for (const needle of [key, key.slice(8, 30)]) {
		const at = text.indexOf(needle);
		if (at >= 0) return text.slice(Math.max(0, at - 120), at + needle.length + 40);
	}
	return undefined;
}

const pairs = (items: NodeExecutionItem[]) =>
	items.map((item) => (item.pairedItem as { item: number }).item);
const statuses = () =>
	session.emulator.requests.map((request) => request.status).sort((a, b) => +a - +b);

const leadItems = (count: number, start: number) =>
	Array.from({ length: count }, (_, index) => ({ phone: `+1415555${start + index}00` }));

/**
 * Adds, after the node's error output, an IF node on `message.httpCode` = "422" and an Edit
 * Fields node on each branch that looks the input item up through pairedItem.
 */
function withStatusBranch(workflow: WorkflowJson): WorkflowJson {
	const branch = (name: string) => ({
		...pairedLookupNode(name, {
			name: "={{ $('Items').item.json.name }}",
			httpCode: '={{ $json.message?.httpCode ?? "" }}',
		}),
		id: name,
	});
	const statusIs422 = {
		id: 'status',
		name: 'Status',
		type: 'n8n-nodes-base.if',
		typeVersion: 2,
		position: [660, 120] as [number, number],
		parameters: {
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
				conditions: [
					{
						id: 'is-422',
						leftValue: '={{ $json.message?.httpCode }}',
						rightValue: '422',
						operator: { type: 'string', operation: 'equals' },
					},
				],
				combinator: 'and',
			},
			options: {},
		},
	};
	return {
		...workflow,
		nodes: [...workflow.nodes, statusIs422, branch('API rejected'), branch('Refused locally')],
		connections: {
			...workflow.connections,
			[NODE_NAME]: { main: [[], [{ node: 'Status', type: 'main', index: 0 }]] },
			Status: {
				main: [
					[{ node: 'API rejected', type: 'main', index: 0 }],
					[{ node: 'Refused locally', type: 'main', index: 0 }],
				],
			},
		},
	};
}

async function run(
	parameters: Record<string, unknown>,
	items: Array<Record<string, unknown>>,
	options: Partial<Parameters<typeof nodeWorkflow>[0]> = {},
	apiKey: string = DEMO_KEYS.full,
) {
	const credential = credentialFor(apiKey);
	const workflow = nodeWorkflow({ parameters, credential, ...options });
	return await session.server.runWorkflow(workflow, [credential], withItems(items));
}

describe('error output routing and pairedItem', () => {
	test('an API 422 and a local refusal leave through the error output, paired, with the status to branch on', async () => {
		const items = [
			{ phone: '+14155550001', name: 'A' },
			{ phone: '12345', name: 'B' },
			{ phone: '+14155550003', name: 'C' },
			{ name: 'D' },
			{ phone: '+14155550005', name: 'E' },
			{ phone: '+14155550006', name: 'F' },
		];
		// The API judges the numbers, so B gets its 422; D has no phone, which is refused locally.
		const workflow = withStatusBranch(
			nodeWorkflow({
				parameters: importLead({ validatePhone: false }),
				credential: credentialFor(DEMO_KEYS.full),
				onError: 'continueErrorOutput',
			}),
		);
		const result = await session.server.runWorkflow(
			workflow,
			[credentialFor(DEMO_KEYS.full)],
			withItems(items),
		);
		const success = nodeOutput(result.run, NODE_NAME, 0);
		const failed = nodeOutput(result.run, NODE_NAME, 1);
		expect(success.map((item) => item.json.name)).toEqual(['A', 'C', 'E', 'F']);
		expect(pairs(success)).toEqual([0, 2, 4, 5]);
		expect(pairs(failed)).toEqual([1, 3]);
		// n8n merges the input item into each error item: the next node still sees its fields.
		expect(failed.map((item) => item.json.name)).toEqual(['B', 'D']);
		expect(failed[0].json).toMatchObject({
			phone: '12345',
			error: expect.stringMatching(/^The API rejected the lead \(422\): Phone: Value error/),
			message: {
				httpCode: '422',
				details: [expect.objectContaining({ loc: ['body', 'phone_e164'], type: 'value_error' })],
			},
		});
		// Refused before any request: no HTTP status, the same detail shape as the API's.
		expect(failed[1].json.error).toBe(
			'Phone is empty: map it to the column or field that holds the phone number',
		);
		expect(failed[1].json.message).toEqual({
			details: [expect.objectContaining({ loc: ['body', 'phone_e164'] })],
		});
		// An IF node branches on the status; $('Items').item resolves through pairedItem.
		expect(nodeOutput(result.run, 'API rejected').map((item) => item.json)).toEqual([
			{ name: 'B', httpCode: '422' },
		]);
		expect(nodeOutput(result.run, 'Refused locally').map((item) => item.json)).toEqual([
			{ name: 'D', httpCode: '' },
		]);
		expect(statuses()).toEqual([201, 201, 201, 201, 422]);
	});

	test('local phone checks: failed items go to the error output paired to their input', async () => {
		const items = [
			{ phone: '+14155550001', name: 'A' },
			{ phone: 'call me maybe', name: 'B' },
			{ phone: '+14155550003', name: 'C' },
			{ name: 'D' },
			{ phone: '+14155550005', name: 'E' },
		];
		const result = await run(importLead(), items, {
			onError: 'continueErrorOutput',
			onErrorOutput: pairedLookupNode('Rejected', {
				name: "={{ $('Items').item.json.name }}",
				reason: '={{ $json.error }}',
			}),
		});
		const success = nodeOutput(result.run, NODE_NAME, 0);
		const failed = nodeOutput(result.run, NODE_NAME, 1);
		expect(success.map((item) => item.json.name)).toEqual(['A', 'C', 'E']);
		expect(pairs(success)).toEqual([0, 2, 4]);
		expect(pairs(failed)).toEqual([1, 3]);
		expect(failed.map((item) => item.json.name)).toEqual(['B', 'D']);
		expect(failed[0].json.error).toMatch(/^Phone: "call me maybe" contains no digits/);
		expect(failed[1].json.error).toBe(
			'Phone is empty: map it to the column or field that holds the phone number',
		);
		expect(nodeOutput(result.run, 'Rejected').map((item) => item.json)).toEqual([
			{ name: 'B', reason: failed[0].json.error },
			{ name: 'D', reason: failed[1].json.error },
		]);
		expect(statuses()).toEqual([201, 201, 201]);
	});

	test('a 422 from the API lands on the item that caused it, with the raw detail', async () => {
		const items = [{ phone: '+14155550001' }, { phone: '12345' }, { phone: '+14155550003' }];
		const result = await run(importLead({ validatePhone: false }), items, {
			onError: 'continueErrorOutput',
		});
		expect(statuses()).toEqual([201, 201, 422]);
		expect(pairs(nodeOutput(result.run, NODE_NAME, 0))).toEqual([0, 2]);
		const [failed, ...others] = nodeOutput(result.run, NODE_NAME, 1);
		expect(others).toEqual([]);
		expect(failed.pairedItem).toEqual({ item: 1 });
		expect(failed.json.phone).toBe('12345');
		expect(failed.json.error).toMatch(
			/^The API rejected the lead \(422\): Phone: Value error, phone_e164 must be an E\.164/,
		);
		expect(failed.json.message).toEqual({
			httpCode: '422',
			details: [expect.objectContaining({ loc: ['body', 'phone_e164'], type: 'value_error' })],
		});
	});

	test('"Continue" keeps a failed item in the main output, in its place', async () => {
		const items = [{ phone: '+14155550001' }, { phone: '12345' }, { phone: '+14155550003' }];
		const result = await run(importLead({ validatePhone: false }), items, {
			onError: 'continueRegularOutput',
		});
		const output = nodeOutput(result.run, NODE_NAME, 0);
		expect(output).toHaveLength(3);
		expect(output[0].json.phone_e164).toBe('+14155550001');
		expect(output[1].json).toEqual({
			error: expect.stringMatching(/^The API rejected the lead \(422\)/),
			message: { httpCode: '422', details: [expect.objectContaining({ type: 'value_error' })] },
		});
		expect(output[1].pairedItem).toEqual({ item: 1 });
		expect(output[2].json.phone_e164).toBe('+14155550003');
	});

	test('by default the execution stops with a NodeApiError that names the item; no later item is sent', async () => {
		const items = [{ phone: '+14155550001' }, { phone: '12345' }, ...leadItems(3, 10)];
		const result = await run(importLead({ validatePhone: false }), items);
		expect(result.httpStatus).toBe(500);
		expect(result.run.status).toBe('error');
		const { error, lastNodeExecuted } = result.run.data.resultData;
		expect(lastNodeExecuted).toBe(NODE_NAME);
		expect(error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '422',
			message: expect.stringMatching(/^The API rejected the lead \(422\): Phone: Value error/),
			description: expect.stringMatching(/loc: body\.phone_e164 \| msg: .+ \| type: value_error/),
			context: expect.objectContaining({ itemIndex: 1 }),
		});
		// A request still in flight when the run stopped would have reached the emulator by now.
		await new Promise((resolve) => setTimeout(resolve, 1000));
		expect(statuses()).toEqual([201, 422]);
	});
});

describe('401 and 403 inside a workflow', () => {
	const onError = { onError: 'continueErrorOutput' as const };
	const errorOf = (result: Awaited<ReturnType<typeof run>>) =>
		nodeOutput(result.run, NODE_NAME, 1).map((item) => String(item.json.error));

	test('an unknown key: "API key missing or invalid", sent once, not retried', async () => {
		const result = await run(importLead(), [{ phone: '+14155550001' }], onError, UNKNOWN_KEY);
		expect(errorOf(result)).toEqual([expect.stringMatching(/^API key missing or invalid \(401\)/)]);
		expect(statuses()).toEqual([401]);
	});

	test.each([
		['Import Lead', 'leads:write', 'import leads', importLead(), DEMO_KEYS.callsOnly],
		[
			'List Calls',
			'calls:read',
			'list calls',
			{ resource: 'call', operation: 'getAll' },
			DEMO_KEYS.leadsOnly,
		],
		[
			'Get Recording',
			'recordings:read',
			'fetch call recordings',
			{ resource: 'recording', operation: 'get', callId: 'call_000120' },
			DEMO_KEYS.callsOnly,
		],
	])(
		'%s with a key lacking %s: says so, sent once',
		async (_name, scope, action, parameters, key) => {
			const result = await run(parameters, [{ phone: '+14155550001' }], onError, key);
			expect(errorOf(result)).toEqual([
				`The API key lacks the scope ${scope} needed to ${action} (403): create a key with that scope in the desktop app (Settings › Developers) and paste it into the credential`,
			]);
			expect(statuses()).toEqual([403]);
		},
	);

	test('a malformed key fails every item before any request, without echoing it', async () => {
		const result = await run(
			importLead(),
			[{ phone: '+14155550001' }, { phone: '+14155550002' }],
			onError,
			MALFORMED_KEY,
		);
		const errors = errorOf(result);
		expect(errors).toHaveLength(2);
		expect(errors[0]).toMatch(/API key is malformed/);
		expect(JSON.stringify(result.run)).not.toContain(MALFORMED_KEY);
		expect(session.emulator.requests).toHaveLength(0);
	});
});

describe('the credential test, as the editor runs it', () => {
	async function testCredential(apiKey: string, baseUrl?: string) {
		const credential = credentialFor(apiKey, baseUrl);
		await session.server.createCredential(credential);
		return await session.server.testCredential(credential);
	}

	const PROBES = [
		['GET', '/v1/calls', { limit: '1' }],
		['POST', '/v1/leads', {}],
		['GET', '/v1/calls/n8n-credential-test-no-such-call/recording', {}],
	];

	test('a good key: OK with its three scopes, one harmless request per scope, nothing created', async () => {
		expect(await testCredential(DEMO_KEYS.full)).toEqual({
			status: 'OK',
			message: 'Valid API key with scopes: calls:read, leads:write, recordings:read',
		});
		expect(session.emulator.requests.map((r) => [r.method, r.path, r.query])).toEqual(PROBES);
		expect(statuses()).toEqual([200, 404, 422]);
		expect(session.emulator.leads.size).toBe(0);
		for (const request of session.emulator.requests) {
			expect(request.headers.authorization).toBe(`Bearer ${DEMO_KEYS.full}`);
		}
	});

	test('a key with only leads:write is valid and told which scopes it lacks; an unknown key (401) is not', async () => {
		expect(await testCredential(DEMO_KEYS.leadsOnly)).toEqual({
			status: 'OK',
			message:
				'Valid API key with scopes: leads:write. Missing: calls:read (needed by Get Many Calls and the trigger), recordings:read (needed by Get Recording)',
		});
		const unauthorized = await testCredential(UNKNOWN_KEY);
		expect(unauthorized.status).toBe('Error');
		expect(unauthorized.message).toMatch(/^The API key is invalid or revoked \(401\)/);
		expect(statuses()).toEqual([401, 403, 403, 422]);
	});

	test('a malformed key or a non-https Base URL: a clear error, no request, no key in it', async () => {
		const malformed = await testCredential(MALFORMED_KEY);
		expect(malformed).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The credential's API key is malformed/),
		});
		expect(malformed.message).not.toContain(MALFORMED_KEY);
		const insecure = await testCredential(DEMO_KEYS.full, 'http://api.example.com');
		expect(insecure.message).toMatch(/Base URL must start with https:\/\//);
		expect(session.emulator.requests).toHaveLength(0);
	});
});

describe('the API key stays secret', () => {
	// Runs last in this file: by now every key above has been used, well or badly.
	test('no key appears in the database (executions, workflows, credentials) or the server log', async () => {
		const keys = [...Object.values(DEMO_KEYS), UNKNOWN_KEY, MALFORMED_KEY];
		const database = await readDatabaseText(session.sandbox);
		const log = session.serverLog();
		// The dump holds the credentials and the failed executions, and the log is at debug level.
		expect(database).toContain('Lead & Call Access (key-1)');
		expect(database).toContain('API key missing or invalid (401)');
		expect(log).toMatch(/\| debug \| Running node "Lead & Call Access" started/);
		// The middle of a key too: a key cut at a line or JSON boundary would still leak.
		expect(keys.map((key) => leakOf(database, key))).toEqual(keys.map(() => undefined));
		expect(keys.map((key) => leakOf(log, key))).toEqual(keys.map(() => undefined));
	});
});
