/**
 * The node's description is made from the operation declarations (actions/<resource>/
 * <op>.operation.ts). These check what n8n makes of it against those declarations, for every
 * node version: each operation is listed once with its action, and its fields show for it alone.
 */
import type { ICredentialTestFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { LeadCallAccess } from '../../nodes/LeadCallAccess/LeadCallAccess.node';
import { resources } from '../../nodes/LeadCallAccess/actions/router';
import { testCredential } from '../../nodes/shared/credentialCheck';

const { description } = new LeadCallAccess();
const versions = description.version as number[];
const declared = resources.flatMap((resource) =>
	resource.operations.map((operation) => ({ resource, operation })),
);
/** Fields of the node itself, not of one operation. */
const NODE_FIELDS = ['resource', 'operation'];

test('the Resource list holds each declared resource once, by name, the first by default', () => {
	const property = description.properties.find(({ name }) => name === 'resource')!;
	const values = property.options!.map((option) => ('value' in option ? option.value : ''));
	expect(values.sort()).toEqual(resources.map(({ value }) => value).sort());
	expect(property.default).toBe(resources[0].value);
});

test.each(resources)(
	'the Operation list of $value holds its declared operations, with their actions',
	(resource) => {
		const property = description.properties.find(
			({ name, displayOptions }) =>
				name === 'operation' && displayOptions?.show?.resource?.[0] === resource.value,
		)!;
		const listed = property.options as Array<{ value: string; action: string }>;
		expect(listed.map(({ value, action }) => ({ value, action })).sort(byValue)).toEqual(
			resource.operations.map(({ value, action }) => ({ value, action })).sort(byValue),
		);
		expect(property.default).toBe(resource.operations[0].value);
	},
);

const byValue = (a: { value: string }, b: { value: string }) => a.value.localeCompare(b.value);

describe.each(versions)('node version %i', (version) => {
	test.each(
		declared.map(({ resource, operation }) => [resource.value, operation.value, operation]),
	)('%s %s: n8n sets its declared fields and no others', (resource, operation, declaration) => {
		const node = { typeVersion: version, parameters: {} } as unknown as INode;
		const parameters = NodeHelpers.getNodeParameters(
			description.properties,
			{ resource, operation },
			true,
			false,
			node,
			description,
		)!;
		const names = (properties: INodeProperties[]) => properties.map(({ name }) => name);
		const own = Object.keys(parameters).filter((name) => !NODE_FIELDS.includes(name));
		const alwaysShown = declaration.properties.filter(({ displayOptions }) => !displayOptions);
		expect(names(declaration.properties)).toEqual(expect.arrayContaining(own));
		expect(own).toEqual(expect.arrayContaining(names(alwaysShown)));
		expect(parameters).toMatchObject({ resource, operation });
	});
});

test('operation values are unique within a resource', () => {
	for (const resource of resources) {
		const values = resource.operations.map(({ value }) => value);
		expect(new Set(values).size).toBe(values.length);
	}
});

test('the credential test probes every scope an operation declares', async () => {
	// A key with no scope at all: every probe is refused (403), and the message lists each scope.
	const refused = {
		helpers: { request: async () => await Promise.resolve({ statusCode: 403 }) },
	} as unknown as ICredentialTestFunctions;
	const data = { baseUrl: 'https://api.example.com', apiKey: `pf_live_${'a1B2_-'.repeat(7)}x` };
	const result = await testCredential.call(refused, { id: '1', name: 'x', type: 'x', data });
	expect(result.status).toBe('Error');
	for (const { operation } of declared) expect(result.message).toContain(operation.api.scope);
});
