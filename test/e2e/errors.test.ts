/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Errors as a real n8n (1.x and 2.x: LCA_N8N_VERSION) shows them: where Import Lead's failing
 * items go (the error output paired to their input, "Continue" in place), the credential test
 * from the editor, and the API key kept out of everything n8n writes (database and log, at
 * debug level, where a careless node or helper would print request options). When each error
 * comes is the engine suite's (test/engine/importLead.test.ts, test/engine/editor.test.ts).
 */
import { openSession, type Session } from '../../devkit/demo/session';
import {
	NODE_NAME,
	nodeWorkflow,
	pairedLookupNode,
	parameters,
	withItems,
} from '../../devkit/workflows';
import {
	nodeOutput,
	readDatabaseText,
	type CredentialJson,
	type NodeExecutionItem,
} from '../../devkit/n8n';
import { DEMO_KEYS } from '../../devkit/emulator';

const importLead = parameters.importLead;

jest.setTimeout(120_000);

// Well-formed but unknown to the API, and malformed: both must stay out of n8n's records too.
const UNKNOWN_KEY = `pf_live_e2eUnknownKey_${'x'.repeat(29)}`;
const MALFORMED_KEY = 'pf_live_e2eMalformedKey';

let session: Session;
beforeAll(async () => {
	session = await openSession({ emulator: { rateLimit: false }, env: { N8N_LOG_LEVEL: 'debug' } });
}, 600_000);
afterAll(async () => await session?.close());
beforeEach(() => session.emulator.reset());

const credentials = new Map<string, CredentialJson>();
/** One n8n credential per key, created on first use; its name holds no key. */
function credentialFor(apiKey: string): CredentialJson {
	if (!credentials.has(apiKey)) {
		credentials.set(apiKey, session.credential(`key-${credentials.size + 1}`, { apiKey }));
	}
	return credentials.get(apiKey)!;
}

/** Import Lead (Validate Phone off: the API judges) with `options` over `items`, in n8n. */
async function run(
	items: Array<Record<string, unknown>>,
	options: Partial<Parameters<typeof nodeWorkflow>[0]> = {},
	apiKey: string = DEMO_KEYS.full,
) {
	const credential = credentialFor(apiKey);
	const parameters = importLead({ validatePhone: false });
	const workflow = nodeWorkflow({ parameters, credential, ...options });
	return await session.server.runWorkflow(workflow, [credential], withItems(items));
}

const pairs = (items: NodeExecutionItem[]) =>
	items.map((item) => (item.pairedItem as { item: number }).item);
/** The statuses of the API's answers since the last reset, in order of value. */
const statuses = () =>
	session.emulator.requests.map((request) => request.status).sort((a, b) => +a - +b);

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
	const result = await run(items, {
		onError: 'continueErrorOutput',
		// Reads the status, and the input item through pairedItem ($('Items').item).
		onErrorOutput: pairedLookupNode('Failed', {
			name: "={{ $('Items').item.json.name }}",
			httpCode: '={{ $json.message?.httpCode ?? "" }}',
		}),
	});
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
			fields: ['Phone'],
			details: [expect.objectContaining({ loc: ['body', 'phone_e164'], type: 'value_error' })],
		},
	});
	// Refused before any request: no HTTP status, the same detail shape as the API's.
	expect(failed[1].json.error).toBe(
		'Phone is empty: this item has no phone number. Fill it in, or filter out items without one before this node; if every item fails so, map Phone to the field that holds the numbers',
	);
	expect(failed[1].json.message).toEqual({
		fields: ['Phone'],
		details: [expect.objectContaining({ loc: ['body', 'phone_e164'] })],
	});
	expect(nodeOutput(result.run, 'Failed').map((item) => item.json)).toEqual([
		{ name: 'B', httpCode: '422' },
		{ name: 'D', httpCode: '' },
	]);
	expect(statuses()).toEqual([201, 201, 201, 201, 422]);
});

test('"Continue" keeps a failed item in the main output, in its place', async () => {
	const items = [{ phone: '+14155550001' }, { phone: '12345' }, { phone: '+14155550003' }];
	const result = await run(items, { onError: 'continueRegularOutput' });
	const output = nodeOutput(result.run, NODE_NAME, 0);
	expect(output).toHaveLength(3);
	expect(output[0].json.phone_e164).toBe('+14155550001');
	expect(output[1].json).toEqual({
		error: expect.stringMatching(/^The API rejected the lead \(422\)/),
		message: {
			httpCode: '422',
			fields: ['Phone'],
			details: [expect.objectContaining({ type: 'value_error' })],
		},
	});
	expect(output[1].pairedItem).toEqual({ item: 1 });
	expect(output[2].json.phone_e164).toBe('+14155550003');
});

// The wording of these errors is checked here only; the engine suite checks what they mean.
test.each([
	['Import Lead', 'leads:write', 'import leads', importLead(), DEMO_KEYS.callsOnly],
	['List Calls', 'calls:read', 'list calls', parameters.listCalls(), DEMO_KEYS.leadsOnly],
	[
		'Get Recording',
		'recordings:read',
		'fetch call recordings',
		parameters.getRecording('call_000120'),
		DEMO_KEYS.callsOnly,
	],
])(
	'%s with a key lacking %s: says so, sent once',
	async (_name, scope, action, parameters, key) => {
		const onError = 'continueErrorOutput';
		const result = await run([{ phone: '+14155550001' }], { parameters, onError }, key);
		expect(nodeOutput(result.run, NODE_NAME, 1).map((item) => item.json.error)).toEqual([
			`The API key lacks the scope ${scope} needed to ${action} (403): create a key with that scope in the desktop app (Settings › Developers) and paste it into the credential`,
		]);
		expect(statuses()).toEqual([403]);
	},
);

describe('the credential test, as the editor runs it', () => {
	const testKey = async (apiKey: string) => {
		await session.server.createCredential(credentialFor(apiKey));
		return await session.server.testCredential(credentialFor(apiKey));
	};

	test('a good key: OK with its three scopes, one harmless request per scope, nothing created', async () => {
		expect(await testKey(DEMO_KEYS.full)).toEqual({
			status: 'OK',
			message: 'Valid API key with scopes: calls:read, leads:write, recordings:read',
		});
		expect(session.emulator.requests.map((r) => [r.method, r.path, r.query])).toEqual([
			['GET', '/v1/calls', { limit: '1' }],
			['POST', '/v1/leads', {}],
			['GET', '/v1/calls/n8n-credential-test-no-such-call/recording', {}],
		]);
		expect(statuses()).toEqual([200, 404, 422]);
		expect(session.emulator.leads.size).toBe(0);
		for (const request of session.emulator.requests) {
			expect(request.headers.authorization).toBe(`Bearer ${DEMO_KEYS.full}`);
		}
	});

	test('a key with only leads:write fails, saying what it works for; an unknown or malformed key is not valid', async () => {
		// The message's wording is the unit test's (test/unit/credential.test.ts).
		expect(await testKey(DEMO_KEYS.leadsOnly)).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^This key works for Import Lead \(it has leads:write\)/),
		});
		expect(await testKey(UNKNOWN_KEY)).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The API key is invalid or revoked \(401\)/),
		});
		expect(await testKey(MALFORMED_KEY)).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The credential's API key is malformed/),
		});
	});
});

/** Where a secret (or its middle part) shows up, with a little context; undefined if nowhere. */
function leakOf(text: string, key: string): string | undefined {
	for (const needle of [key, key.slice(8, 30)]) {
		const at = text.indexOf(needle);
		if (at >= 0) return text.slice(Math.max(0, at - 120), at + needle.length + 40);
	}
	return undefined;
}

// Last on purpose: by now every key has been used, well or badly, in the credential test.
test('no key, in a workflow or the credential test, appears in the database or the debug log', async () => {
	// Failed executions that hold the bad keys' credentials.
	for (const apiKey of [UNKNOWN_KEY, MALFORMED_KEY]) {
		const result = await run(
			[{ phone: '+14155550001' }],
			{ onError: 'continueErrorOutput' },
			apiKey,
		);
		expect(nodeOutput(result.run, NODE_NAME, 1)).toHaveLength(1);
	}
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
