/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Import Lead through n8n-core's engine against the emulator: the request, the output, and where
 * each failing item goes. How numbers are read: importLeadPhone.test.ts.
 */
import { DEMO_KEYS } from '../../devkit/emulator';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import { leads } from '../../devkit/workflows';

describe('Import Lead through the execution engine', () => {
	const { emulator, credentials } = useEmulator();

	const apiBodies = () =>
		emulator()
			.requests.filter((request) => request.path === '/v1/leads')
			.map((request) => JSON.parse(request.body));

	test('sends exactly LeadImport: omitted fields absent, cleared fields null, JSON content type and bearer key', async () => {
		const workflow = workflowFrom('importLeads', {
			items: [{ phone: '+14155552671', name: 'Ada Lovelace' }],
			parameters: {
				additionalFields: {
					name: '={{ $json.name }}',
					contactType: 'prospect',
				},
				clearFields: ['legalBasis', 'campaignId'],
			},
		});
		const result = await run(workflow, credentials());

		expect(result.errors).toEqual([]);
		expect(apiBodies()).toEqual([
			{
				phone_e164: '+14155552671',
				name: 'Ada Lovelace',
				contact_type: 'prospect',
				legal_basis: null,
				campaign_id: null,
			},
		]);
		const [request] = emulator().requests;
		expect(request.method).toBe('POST');
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.headers.authorization).toBe(`Bearer ${DEMO_KEYS.full}`);
		expect(result.success).toHaveLength(1);
		expect(result.success[0]).toMatchObject({ phone_e164: '+14155552671', name: 'Ada Lovelace' });
	});

	test('outputs the 201 body for each item, paired to its input, and upserts by phone', async () => {
		const workflow = workflowFrom('importLeads', {
			items: [
				{ phone: '+14155550001', name: 'First' },
				{ phone: '+14155550002', name: 'Second' },
				{ phone: '+14155550001', name: 'First renamed' },
			],
		});
		const result = await runWorkflowWithPairs(workflow);
		expect(result.pairs).toEqual([0, 1, 2]);
		expect(emulator().leads.size).toBe(2);
		expect(emulator().leads.get('+14155550001')?.name).toBe('First renamed');
		expect(result.success.map((lead) => lead.phone_e164)).toEqual([
			'+14155550001',
			'+14155550002',
			'+14155550001',
		]);
	});

	async function runWorkflowWithPairs(workflow: ReturnType<typeof workflowFrom>) {
		const result = await run(workflow, credentials());
		const items = result.output('Import Lead').success;
		return {
			...result,
			pairs: items.map((item) => (item.pairedItem as { item: number }).item),
		};
	}

	test('an invalid phone fails its own item without spending a request; the others go through', async () => {
		const workflow = workflowFrom('importLeads', {
			items: [
				{ phone: '+14155550001', name: 'ok' },
				{ phone: 'call me maybe', name: 'letters' },
				{ phone: '4155550003', name: 'no country code' },
				{ name: 'missing phone' },
				{ phone: '+14155550005', name: 'ok too' },
			],
		});
		const result = await run(workflow, credentials());

		expect(emulator().requests).toHaveLength(2);
		expect(result.success).toHaveLength(2);
		expect(result.errors).toHaveLength(3);
		expect(result.errors.map((item) => item.name)).toEqual([
			'letters',
			'no country code',
			'missing phone',
		]);
		expect(result.errors[0].error).toMatch(/^Phone: "call me maybe" contains no digits/);
		expect(result.errors[1].error).toMatch(/has no country code/);
		expect(result.errors[2].error).toMatch(
			/^Phone is empty: map it to the column or field that holds the phone number$/,
		);
		// A local check: no HTTP status, the field by its label, the same details as the API's 422.
		expect(result.errors.map((item) => item.message)).toEqual(
			result.errors.map(() => ({
				fields: ['Phone'],
				details: [expect.objectContaining({ loc: ['body', 'phone_e164'], type: 'value_error' })],
			})),
		);
	});

	test('422 from the API becomes an error on the item that caused it, naming the field and the server words', async () => {
		const workflow = workflowFrom('importLeads', {
			items: [{ phone: '+14155550001' }, { phone: '12345' }, { phone: '+14155550003' }],
			// Let the server judge the number, so its 422 is what the user sees.
			parameters: { options: { validatePhone: false } },
		});
		const result = await run(workflow, credentials());

		expect(emulator().requests.map((request) => request.status)).toEqual([201, 422, 201]);
		expect(result.success).toHaveLength(2);
		expect(result.errors).toHaveLength(1);
		const [failed] = result.errors;
		expect(failed.phone).toBe('12345');
		expect(failed.error).toMatch(
			/^The API rejected the lead \(422\): Phone: Value error, phone_e164 must be an E\.164 number/,
		);
		expect(failed.message).toEqual({
			httpCode: '422',
			fields: ['Phone'],
			details: [
				expect.objectContaining({
					loc: ['body', 'phone_e164'],
					type: 'value_error',
					msg: expect.any(String),
				}),
			],
		});
		const errorItem = result.output('Import Lead').error[0];
		expect(errorItem.pairedItem).toEqual({ item: 1 });
	});

	test('with "Continue" (regular output) failed items stay in the main output, in place', async () => {
		const workflow = workflowFrom('importLeads', {
			items: [{ phone: '+14155550001' }, { phone: 'x' }, { phone: '+14155550003' }],
			onError: 'continueRegularOutput',
		});
		const result = await run(workflow, credentials());
		expect(result.success).toHaveLength(3);
		// Exactly `{ error, message }`: the only shape with more than the message that n8n 1.x
		// also routes to the error output (e2e runs it there); no `item.error`, which would
		// make n8n replace the json with the message alone.
		expect(result.success[1]).toEqual({
			error: expect.stringMatching(/^Phone: /),
			message: { fields: ['Phone'], details: expect.any(Array) },
		});
		expect(result.output('Import Lead').success[1]).not.toHaveProperty('error');
		expect(result.errors).toEqual([]);
	});

	test('without "Continue" the execution stops at the failing item: no later item is sent, the error names the item', async () => {
		const workflow = workflowFrom('importLeads', {
			items: [{ phone: '+14155550001' }, { phone: '12345' }, ...leads(10, 2)],
			parameters: { options: { validatePhone: false } },
			onError: 'stopWorkflow',
		});
		const result = await run(workflow, credentials());
		expect(result.error).toBeDefined();
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toMatch(/Phone: Value error/);
		expect(result.error?.description).toMatch(
			/loc: body\.phone_e164 \| msg: .* \| type: value_error/,
		);
		expect((result.error as unknown as { context: { itemIndex: number } }).context.itemIndex).toBe(
			1,
		);
		// As in n8n's own nodes: the items after the failing one are never sent (not even late:
		// a request still in flight when the run stopped would show up after this pause).
		await new Promise((resolve) => setTimeout(resolve, 1000));
		expect(emulator().requests.map((request) => request.status)).toEqual([201, 422]);
	});

	test('every input item ends in exactly one output (count invariant) for a mixed batch', async () => {
		const items = [
			...leads(6),
			{ phone: 'nope' },
			{ phone: '+1', name: 'too short' },
			{ phone: { nested: true } },
			{ phone: '+14155559999', name: 12345 },
		];
		const workflow = workflowFrom('importLeads', { items });
		const result = await run(workflow, credentials());
		const all = [...result.output('Import Lead').success, ...result.output('Import Lead').error];
		expect(all).toHaveLength(items.length);
		const paired = all
			.map((item) => (item.pairedItem as { item: number }).item)
			.sort((a, b) => a - b);
		expect(paired).toEqual(items.map((_, index) => index));
		// A number in a text field is the user's obvious intent: sent as text, not rejected.
		expect(emulator().leads.get('+14155559999')?.name).toBe('12345');
		expect(
			result.errors.find((item) => item.error?.toString().includes('must be text')),
		).toBeDefined();
	});

	test('401 and 403 are reported clearly, are not retried, and never echo the key', async () => {
		const unknownKey = `pf_live_${'A'.repeat(43)}`;
		const unauthorized = await run(
			workflowFrom('importLeads', { items: leads(1) }),
			credentials({ apiKey: unknownKey }),
		);
		expect(unauthorized.errors[0].error).toMatch(/API key missing or invalid \(401\)/);
		// Nothing about the lead's fields: an IF node tells this from a refused field.
		expect(unauthorized.errors[0].message).toEqual({ httpCode: '401' });

		const forbidden = await run(
			workflowFrom('importLeads', { items: leads(1) }),
			credentials({ apiKey: DEMO_KEYS.callsOnly }),
		);
		expect(forbidden.errors[0].error).toMatch(/lacks the scope leads:write/);
		expect(emulator().requests.map((request) => request.status)).toEqual([401, 403]);
		const everything = JSON.stringify([unauthorized.run, forbidden.run]);
		expect(everything).not.toContain(unknownKey);
		expect(everything).not.toContain(DEMO_KEYS.callsOnly);
	});

	test('a malformed key or an http:// base URL fails before any request, without echoing the key', async () => {
		const malformed = 'pf_live_short-key';
		const result = await run(
			workflowFrom('importLeads', { items: leads(2) }),
			credentials({ apiKey: malformed }),
		);
		expect(result.errors).toHaveLength(2);
		expect(result.errors[0].error).toMatch(/API key is malformed/);
		expect(JSON.stringify(result.run)).not.toContain(malformed);

		const insecure = await run(
			workflowFrom('importLeads', { items: leads(1) }),
			credentials({ baseUrl: 'http://api.example.com' }),
		);
		expect(insecure.errors[0].error).toMatch(/must start with https:\/\//);
		expect(emulator().requests).toHaveLength(0);
	});
});
