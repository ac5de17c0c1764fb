/**
 * What the node offers the editor: Get Recording's Call field in both node versions, the
 * "From List" search behind it, the credential test and the canvas subtitle. The list and the
 * test run in n8n-core's own contexts (LoadOptionsContext, CredentialTestContext), as the editor
 * calls them, against the emulator.
 */
import { CredentialTestContext, LoadOptionsContext } from 'n8n-core';
import type { INodeListSearchResult, INodePropertyOptions, IWorkflowBase } from 'n8n-workflow';

import { DEMO_KEYS, PAGE_NUMBER_STYLE, PAGINATION_STYLES } from '../../devkit/emulator';
import { LeadCallAccess } from '../../nodes/LeadCallAccess/LeadCallAccess.node';
import { CREDENTIAL_TEST } from '../../nodes/shared/credentialCheck';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import type { TestCredentials } from '../../devkit/engine/harness';
import { NODE_TYPE, additionalDataFor, oneNodeWorkflow } from '../../devkit/engine/harness';

const node = new LeadCallAccess();

const actionNode = (workflow: IWorkflowBase) =>
	workflow.nodes.find((candidate) => candidate.type === NODE_TYPE)!;

describe('Get Recording Call field', () => {
	const { emulator, credentials } = useEmulator({ seedCalls: 5 });
	const callWithRecording = () => emulator().calls.find((call) => call.has_recording)!;

	test('version 1 workflows keep their plain-text Call ID', async () => {
		// The dev kit builds the node at version 1, with "callId": "={{ $json.id }}" as plain text.
		const workflow = workflowFrom('getRecording', { items: [{ id: callWithRecording().id }] });
		expect(actionNode(workflow).typeVersion).toBe(1);
		const result = await run(workflow, credentials());
		expect(result.errors).toEqual([]);
		expect(result.success).toEqual([expect.objectContaining({ callId: callWithRecording().id })]);
	});

	test.each([
		['From List', { __rl: true, mode: 'list', value: 'CALL' }],
		['By ID', { __rl: true, mode: 'id', value: 'CALL' }],
		['By ID from an expression', { __rl: true, mode: 'id', value: '={{ $json.id }}' }],
		['a plain string (older saved value)', 'CALL'],
	])('version 2 reads the Call %s', async (_mode, value) => {
		const id = callWithRecording().id;
		const workflow = workflowFrom('getRecording', {
			items: [{ id }],
			parameters: { callId: JSON.parse(JSON.stringify(value).replace('CALL', id)) },
		});
		actionNode(workflow).typeVersion = 2;
		const result = await run(workflow, credentials());
		expect(result.errors).toEqual([]);
		expect(result.success).toEqual([expect.objectContaining({ callId: id })]);
		expect(emulator().requests.map((request) => request.path)).toEqual([
			`/v1/calls/${id}/recording`,
		]);
	});

	test('a 404 names the call ID once', async () => {
		const workflow = workflowFrom('getRecording', { items: [{ id: 'call_missing' }] });
		const result = await run(workflow, credentials());
		expect(result.errors[0].error).toBe('No call with ID "call_missing" (404): check the call ID');
	});
});

describe('Import Lead Legal Basis', () => {
	const { emulator, credentials } = useEmulator({ seedCalls: 0 });
	const sentLegalBasis = () =>
		emulator()
			.requests.filter((request) => request.path === '/v1/leads')
			.map((request) => JSON.parse(request.body).legal_basis);

	test.each([
		[1, 'a plain text value (version 1)', 'consent', 'consent'],
		[
			2,
			'a suggestion (From List)',
			{ __rl: true, mode: 'list', value: 'public_task' },
			'public_task',
		],
		[2, 'free text (Custom)', { __rl: true, mode: 'custom', value: 'crm_opt_in' }, 'crm_opt_in'],
		[2, 'an expression', { __rl: true, mode: 'custom', value: '={{ $json.basis }}' }, 'contract'],
		[2, 'a plain text value saved by version 1', 'vital_interests', 'vital_interests'],
	])('version %i sends %s', async (version, _what, legalBasis, sent) => {
		const workflow = workflowFrom('importLeads', {
			items: [{ phone: '+14155552671', basis: 'contract' }],
			parameters: { additionalFields: { legalBasis } },
		});
		actionNode(workflow).typeVersion = version;
		const result = await run(workflow, credentials());
		expect(result.errors).toEqual([]);
		expect(sentLegalBasis()).toEqual([sent]);
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
		[DEMO_KEYS.leadsOnly, 'OK', /scopes: leads:write\. Missing: calls:read .*recordings:read/],
		[DEMO_KEYS.callsAndRecordings, 'OK', /scopes: calls:read, recordings:read\. Missing: leads/],
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
