/**
 * What the node offers the editor: Get Recording's Call field in both node versions, the
 * "From List" search behind it, the credential test and the canvas subtitle. The list and the
 * test run in n8n-core's own contexts (LoadOptionsContext, CredentialTestContext), as the editor
 * calls them, against the emulator.
 */
import { CredentialTestContext, LoadOptionsContext } from 'n8n-core';
import type { INodeListSearchResult, INodePropertyOptions } from 'n8n-workflow';

import { DEMO_KEYS, PAGE_NUMBER_STYLE, PAGINATION_STYLES } from '../../devkit/emulator';
import { LeadCallAccess } from '../../nodes/LeadCallAccess/LeadCallAccess.node';
import { CREDENTIAL_TEST } from '../../nodes/shared/credentialCheck';
import type { WorkflowSetup } from '../../devkit/engine/fixtures';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import type { TestCredentials } from '../../devkit/engine/harness';
import { NODE_TYPE, additionalDataFor, oneNodeWorkflow } from '../../devkit/engine/harness';

const node = new LeadCallAccess();
/** A resource locator's value, as the editor saves it. */
const locator = (mode: string, value: string) => ({ __rl: true, mode, value });

/** Runs the operation's workflow with its node at this version. */
async function runAt(
	version: number,
	template: Parameters<typeof workflowFrom>[0],
	setup: WorkflowSetup,
	credentials: TestCredentials,
) {
	const workflow = workflowFrom(template, setup);
	workflow.nodes.find((candidate) => candidate.type === NODE_TYPE)!.typeVersion = version;
	return await run(workflow, credentials);
}

describe('Get Recording Call field', () => {
	const { emulator, credentials } = useEmulator({ seedCalls: 5 });
	const callWithRecording = () => emulator().calls.find((call) => call.has_recording)!;

	test.each([
		// The dev kit writes "callId": "={{ $json.id }}" as plain text, as version 1 saved it.
		[1, 'a plain-text Call ID (its own field)', undefined],
		[2, 'From List', locator('list', 'CALL')],
		[2, 'By ID', locator('id', 'CALL')],
		[2, 'By ID from an expression', locator('id', '={{ $json.id }}')],
		[2, 'a plain string (older saved value)', 'CALL'],
	])('version %i reads the Call: %s', async (version, _mode, value) => {
		const id = callWithRecording().id;
		const callId = value && JSON.parse(JSON.stringify(value).replace('CALL', id));
		const setup = { items: [{ id }], parameters: callId && { callId } };
		const result = await runAt(version, 'getRecording', setup, credentials());
		expect(result.errors).toEqual([]);
		expect(result.success).toEqual([expect.objectContaining({ callId: id })]);
		expect(emulator().requests.map((request) => request.path)).toEqual([
			`/v1/calls/${id}/recording`,
		]);
	});
});

describe('Import Lead Legal Basis', () => {
	const { emulator, credentials, sentLeads } = useEmulator({ seedCalls: 0 });

	test.each([
		[1, 'a plain text value (version 1)', 'consent', 'consent'],
		[2, 'a suggestion (From List)', locator('list', 'public_task'), 'public_task'],
		[2, 'free text (Custom)', locator('custom', 'crm_opt_in'), 'crm_opt_in'],
		[2, 'an expression', locator('custom', '={{ $json.basis }}'), 'contract'],
		[2, 'a plain text value saved by version 1', 'vital_interests', 'vital_interests'],
	])('version %i sends %s', async (version, _what, legalBasis, sent) => {
		const setup = {
			items: [{ phone: '+14155552671', basis: 'contract' }],
			parameters: { additionalFields: { legalBasis } },
		};
		const result = await runAt(version, 'importLeads', setup, credentials());
		expect(result.errors).toEqual([]);
		expect(sentLeads().map((lead) => lead.legal_basis)).toEqual([sent]);
	});

	test('the suggestions are the six GDPR lawful bases, filtered by the search box', async () => {
		const searchBases = node.methods.listSearch.searchLawfulBases;
		const context = loadOptionsContext(credentials());
		const all = await searchBases.call(context);
		expect(all.results.map((result) => result.value)).toEqual([
			'consent',
			'contract',
			'legal_obligation',
			'vital_interests',
			'public_task',
			'legitimate_interests',
		]);
		const filtered = await searchBases.call(context, 'INTEREST');
		expect(filtered.results.map((result) => result.value)).toEqual([
			'vital_interests',
			'legitimate_interests',
		]);
		expect(emulator().requests).toHaveLength(0);
	});
});

function loadOptionsContext(credentials: TestCredentials): LoadOptionsContext {
	const { workflow, node: editorNode } = oneNodeWorkflow({
		name: 'Get Recording',
		type: NODE_TYPE,
		typeVersion: 2,
		parameters: { resource: 'recording', operation: 'get' },
	});
	return new LoadOptionsContext(
		workflow,
		editorNode,
		additionalDataFor(credentials),
		'parameters.callId',
	);
}

async function search(
	credentials: TestCredentials,
	filter?: string,
	token?: string,
): Promise<INodeListSearchResult> {
	return await node.methods.listSearch.searchCalls.call(
		loadOptionsContext(credentials),
		filter,
		token,
	);
}

describe.each([...PAGINATION_STYLES, PAGE_NUMBER_STYLE])(
	'Call list (From List), %s pagination',
	(paginationStyle) => {
		const { emulator, credentials } = useEmulator({ seedCalls: 120, paginationStyle });

		test('scrolling pages through every call once, newest first', async () => {
			const ids: string[] = [];
			let token: string | undefined;
			let steps = 0;
			do {
				const page = await search(credentials(), undefined, token);
				ids.push(...page.results.map((result) => String(result.value)));
				token = page.paginationToken;
				steps++;
			} while (token !== undefined && steps < 10);
			expect(ids).toEqual(emulator().calls.map((call) => call.id));
			expect(steps).toBe(3); // 120 calls, 50 a page
		});

		test('the search box filters by ID and reads further pages until something matches', async () => {
			const oldest = emulator().calls[emulator().calls.length - 1];
			const page = await search(credentials(), oldest.id.toUpperCase());
			expect(page.results).toEqual([
				{ name: expect.stringContaining(oldest.id), value: oldest.id },
			]);
		});
	},
);

describe('Credential test', () => {
	const { emulator, credentials } = useEmulator({ seedCalls: 3 });

	async function testKey(overrides: Partial<TestCredentials>) {
		const test = node.methods.credentialTest[CREDENTIAL_TEST];
		const data = { ...credentials(), requestsPerMinute: 60, ...overrides };
		return await test.call(new CredentialTestContext(), {
			id: '1',
			name: 'test',
			type: 'leadCallAccessApi',
			data,
		});
	}

	test.each([
		[DEMO_KEYS.full, 'OK', /scopes: calls:read, leads:write, recordings:read$/],
		// n8n's dialog shows only its own line for an OK: a key lacking scopes fails, saying so.
		[
			DEMO_KEYS.leadsOnly,
			'Error',
			/^This key works for Import Lead \(it has leads:write\) but lacks calls:read \(for Get Many Calls and the trigger\) and recordings:read \(for Get Recording\)\. If you use only Import Lead, this key is all you need: the rest is optional\. For the others, create a key with those scopes too in the desktop app \(Settings > Developers\)$/,
		],
		[
			DEMO_KEYS.callsAndRecordings,
			'Error',
			/^This key works for Get Many Calls and the trigger and Get Recording \(it has calls:read and recordings:read\) but lacks leads:write \(for Import Lead\)\./,
		],
		[DEMO_KEYS.noScopes, 'Error', /valid but has none of the scopes/],
		[`pf_live_${'x'.repeat(43)}`, 'Error', /invalid or revoked \(401\)/],
		['not-a-key', 'Error', /malformed/],
	])('key %s: %s', async (apiKey, status, message) => {
		const result = await testKey({ apiKey });
		expect(result).toEqual({ status, message: expect.stringMatching(message) });
		if (apiKey.length > 20) expect(result.message).not.toContain(apiKey.slice(8));
		// Nothing was imported: the lead probe sends an empty body, which the API rejects.
		expect(emulator().leads.size).toBe(0);
	});

	test("each probe carries the key, attached by the credential's authenticate", async () => {
		await testKey({ apiKey: DEMO_KEYS.full });
		const sent = emulator().requests.map((request) => request.headers.authorization);
		expect(sent).toEqual([1, 2, 3].map(() => `Bearer ${DEMO_KEYS.full}`));
	});

	test('an unreachable host is named in words', async () => {
		const result = await testKey({ baseUrl: 'http://127.0.0.1:9' });
		expect(result).toEqual({
			status: 'Error',
			message: 'Nothing is listening at http://127.0.0.1:9 (connection refused)',
		});
	});
});

const operations = node.description.properties
	.filter((property) => property.name === 'operation')
	.flatMap((property) =>
		(property.options as INodePropertyOptions[]).map((option) => ({
			resource: property.displayOptions!.show!.resource![0] as string,
			operation: option.value as string,
			action: option.action,
		})),
	);

test.each(operations)(
	'the canvas subtitle of $resource $operation is its action ($action)',
	({ resource, operation, action }) => {
		const { workflow, node: canvasNode } = oneNodeWorkflow({
			name: 'Lead & Call Access',
			type: NODE_TYPE,
			typeVersion: 2,
			parameters: { resource, operation },
		});
		const subtitle = workflow.expression.getSimpleParameterValue(
			canvasNode,
			node.description.subtitle!,
			'internal',
			{},
		);
		expect(subtitle).toBe(action);
	},
);
