/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Import Lead through n8n-core's engine against the emulator: the request, the output, and where
 * each failing item goes. How numbers are read: importLeadPhone.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEMO_KEYS } from '../../devkit/emulator';
import type { RunResult } from '../../devkit/engine/fixtures';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import { leads } from '../../devkit/workflows';

describe('Import Lead through the execution engine', () => {
	const { emulator, credentials, importLeads, sentLeads, statuses } = useEmulator();
	const pairs = (items: Array<{ pairedItem?: unknown }>) =>
		items.map((item) => (item.pairedItem as { item: number }).item);
	const phoneRefused = { fields: ['Phone'], details: expect.any(Array) };

	test('sends exactly LeadImport: omitted fields absent, cleared fields null, JSON content type and bearer key', async () => {
		const workflow = workflowFrom('importLeads', {
			items: [{ phone: '+14155552671', name: 'Ada Lovelace' }],
			parameters: {
				additionalFields: { name: '={{ $json.name }}', contactType: 'prospect' },
				clearFields: ['legalBasis', 'campaignId'],
			},
		});
		const result = await run(workflow, credentials());

		expect(result.errors).toEqual([]);
		expect(sentLeads()).toEqual([
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
		const result = await importLeads([
			{ phone: '+14155550001', name: 'First' },
			{ phone: '+14155550002', name: 'Second' },
			{ phone: '+14155550001', name: 'First renamed' },
		]);
		expect(pairs(result.output('Import Lead').success)).toEqual([0, 1, 2]);
		expect(emulator().leads.size).toBe(2);
		expect(emulator().leads.get('+14155550001')?.name).toBe('First renamed');
		expect(result.success.map((lead) => lead.phone_e164)).toEqual([
			'+14155550001',
			'+14155550002',
			'+14155550001',
		]);
	});

	test('an invalid phone fails its own item without spending a request; the others go through', async () => {
		const result = await importLeads([
			{ phone: '+14155550001', name: 'ok' },
			{ phone: 'call me maybe', name: 'letters' },
			{ phone: '4155550003', name: 'no country code' },
			{ name: 'missing phone' },
			{ phone: '+14155550005', name: 'ok too' },
		]);

		expect(emulator().requests).toHaveLength(2);
		expect(result.success).toHaveLength(2);
		expect(result.errors.map((item) => [item.name, item.error])).toEqual([
			['letters', expect.stringMatching(/^Phone: "call me maybe" contains no digits/)],
			['no country code', expect.stringMatching(/has no country code/)],
			[
				'missing phone',
				'Phone is empty: this item has no phone number. Fill it in, or filter out items without one before this node; if every item fails so, map Phone to the field that holds the numbers',
			],
		]);
		// A local check: no HTTP status, the field by its label, the same details as the API's 422.
		expect(result.errors.map((item) => item.message)).toEqual(
			result.errors.map(() => ({
				fields: ['Phone'],
				details: [expect.objectContaining({ loc: ['body', 'phone_e164'], type: 'value_error' })],
			})),
		);
	});

	test('422 from the API becomes an error on the item that caused it, naming the field and the server words', async () => {
		// Validate Phone off lets the server judge the number, so its 422 is what the user sees.
		const result = await importLeads(
			[{ phone: '+14155550001' }, { phone: '12345' }, { phone: '+14155550003' }],
			{ validatePhone: false },
		);

		expect(statuses()).toEqual([201, 422, 201]);
		expect(result.success).toHaveLength(2);
		expect(result.errors).toEqual([
			expect.objectContaining({
				phone: '12345',
				error: expect.stringMatching(
					/^The API rejected the lead \(422\): Phone: Value error, phone_e164 must be an E\.164 number/,
				),
				message: {
					httpCode: '422',
					fields: ['Phone'],
					details: [
						expect.objectContaining({
							loc: ['body', 'phone_e164'],
							type: 'value_error',
							msg: expect.any(String),
						}),
					],
				},
			}),
		]);
		expect(pairs(result.output('Import Lead').error)).toEqual([1]);
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
			message: phoneRefused,
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
		const { error } = await run(workflow, credentials());
		expect(error).toMatchObject({
			name: 'NodeApiError',
			message: expect.stringMatching(/Phone: Value error/),
			description: expect.stringMatching(/loc: body\.phone_e164 \| msg: .* \| type: value_error/),
			context: expect.objectContaining({ itemIndex: 1 }),
		});
		// As in n8n's own nodes: the items after the failing one are never sent (not even late:
		// a request still in flight when the run stopped would show up after this pause).
		await new Promise((resolve) => setTimeout(resolve, 1000));
		expect(statuses()).toEqual([201, 422]);
	});

	test('every input item ends in exactly one output (count invariant) for a mixed batch', async () => {
		const items: IDataObject[] = [
			...leads(6),
			{ phone: 'nope' },
			{ phone: '+1', name: 'too short' },
			{ phone: { nested: true } },
			{ phone: '+14155559999', name: 12345 },
		];
		const result = await importLeads(items);
		const { success, error } = result.output('Import Lead');
		expect(pairs([...success, ...error]).sort((a, b) => a - b)).toEqual(items.map((_, i) => i));
		// A number in a text field is the user's obvious intent: sent as text, not rejected.
		expect(emulator().leads.get('+14155559999')?.name).toBe('12345');
		expect(result.errors.find((item) => String(item.error).includes('must be text'))).toBeDefined();
	});

	/** The run's data holds nothing of this key, anywhere. */
	const keptSecret = (key: string, ...results: RunResult[]) =>
		expect(JSON.stringify(results.map((result) => result.run))).not.toContain(key);

	test('401 and 403 are reported clearly, are not retried, and never echo the key', async () => {
		const unknownKey = `pf_live_${'A'.repeat(43)}`;
		const unauthorized = await importLeads(1, undefined, { apiKey: unknownKey });
		expect(unauthorized.errors[0].error).toMatch(/API key missing or invalid \(401\)/);
		// Nothing about the lead's fields: an IF node tells this from a refused field.
		expect(unauthorized.errors[0].message).toEqual({ httpCode: '401' });

		const forbidden = await importLeads(1, undefined, { apiKey: DEMO_KEYS.callsOnly });
		expect(forbidden.errors[0].error).toMatch(/lacks the scope leads:write/);
		expect(statuses()).toEqual([401, 403]);
		keptSecret(unknownKey, unauthorized, forbidden);
		keptSecret(DEMO_KEYS.callsOnly, unauthorized, forbidden);
	});

	test('a malformed key or an http:// base URL fails before any request, without echoing the key', async () => {
		const malformed = 'pf_live_short-key';
		const result = await importLeads(2, undefined, { apiKey: malformed });
		expect(result.errors.map((item) => item.error)).toEqual([
			expect.stringMatching(/API key is malformed/),
			expect.stringMatching(/API key is malformed/),
		]);
		keptSecret(malformed, result);

		const insecure = await importLeads(1, undefined, { baseUrl: 'http://api.example.com' });
		expect(insecure.errors[0].error).toMatch(/must start with https:\/\//);
		expect(emulator().requests).toHaveLength(0);
	});
});
