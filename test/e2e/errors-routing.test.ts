/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Where a real n8n (1.x and 2.x: LCA_N8N_VERSION) puts Import Lead's failing items: the error
 * output paired to their input, with the HTTP status and the refused fields to branch on, a
 * 422 on the right item, "Continue" in place, and no item sent after a stop.
 */
import {
	NODE_NAME,
	nodeWorkflow,
	pairedLookupNode,
	parameters,
	withItems,
} from '../../devkit/workflows';
import { nodeOutput, type WorkflowJson } from '../../devkit/n8n';
import { DEMO_KEYS } from '../../devkit/emulator';
import { leadItems, pairs, useErrorsSession } from './errors-kit';

const importLead = parameters.importLead;

jest.setTimeout(120_000);

const { session, credentialFor, run, statuses } = useErrorsSession();

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
		const result = await session().server.runWorkflow(
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
				fields: ['Phone'],
				details: [expect.objectContaining({ loc: ['body', 'phone_e164'], type: 'value_error' })],
			},
		});
		// Refused before any request: no HTTP status, the same detail shape as the API's.
		expect(failed[1].json.error).toBe(
			'Phone is empty: map it to the column or field that holds the phone number',
		);
		expect(failed[1].json.message).toEqual({
			fields: ['Phone'],
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
			fields: ['Phone'],
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
			message: {
				httpCode: '422',
				fields: ['Phone'],
				details: [expect.objectContaining({ type: 'value_error' })],
			},
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
