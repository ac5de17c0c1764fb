/**
 * Errors about the key as a real n8n (1.x and 2.x: LCA_N8N_VERSION) shows them: 401 and 403 in
 * a workflow, the credential test from the editor, and the API key kept out of everything n8n
 * writes (database and log, at debug level). Failing items' routing: errors-routing.test.ts.
 */
import { NODE_NAME, parameters } from '../../devkit/workflows';
import { nodeOutput, readDatabaseText } from '../../devkit/n8n';
import { DEMO_KEYS } from '../../devkit/emulator';
import { MALFORMED_KEY, UNKNOWN_KEY, useErrorsSession } from './errors-kit';

const importLead = parameters.importLead;

jest.setTimeout(120_000);

const { session, credentialFor, run, statuses } = useErrorsSession();

/** Where a secret (or its middle part) shows up, with a little context; undefined if nowhere. */
function leakOf(text: string, key: string): string | undefined {
	for (const needle of [key, key.slice(8, 30)]) {
		const at = text.indexOf(needle);
		if (at >= 0) return text.slice(Math.max(0, at - 120), at + needle.length + 40);
	}
	return undefined;
}

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
		expect(session().emulator.requests).toHaveLength(0);
	});
});

describe('the credential test, as the editor runs it', () => {
	async function testCredential(apiKey: string, baseUrl?: string) {
		const credential = credentialFor(apiKey, baseUrl);
		await session().server.createCredential(credential);
		return await session().server.testCredential(credential);
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
		expect(session().emulator.requests.map((r) => [r.method, r.path, r.query])).toEqual(PROBES);
		expect(statuses()).toEqual([200, 404, 422]);
		expect(session().emulator.leads.size).toBe(0);
		for (const request of session().emulator.requests) {
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
		expect(session().emulator.requests).toHaveLength(0);
	});
});

describe('the API key stays secret', () => {
	// Runs last in this file: by now every key above has been used, well or badly.
	test('no key appears in the database (executions, workflows, credentials) or the server log', async () => {
		const keys = [...Object.values(DEMO_KEYS), UNKNOWN_KEY, MALFORMED_KEY];
		const database = await readDatabaseText(session().sandbox);
		const log = session().serverLog();
		// The dump holds the credentials and the failed executions, and the log is at debug level.
		expect(database).toContain('Lead & Call Access (key-1)');
		expect(database).toContain('API key missing or invalid (401)');
		expect(log).toMatch(/\| debug \| Running node "Lead & Call Access" started/);
		// The middle of a key too: a key cut at a line or JSON boundary would still leak.
		expect(keys.map((key) => leakOf(database, key))).toEqual(keys.map(() => undefined));
		expect(keys.map((key) => leakOf(log, key))).toEqual(keys.map(() => undefined));
	});
});
