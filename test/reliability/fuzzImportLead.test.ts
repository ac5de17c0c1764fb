/**
 * Import Lead with fuzzed item values (fast-check): wrong types, nesting, empty and odd
 * strings, 1 MB strings, and phone numbers in many national and international shapes.
 * Whatever the input, every item ends in exactly one output with a clear message, every body
 * the API receives is a valid LeadImport, and no request is spent on a value the node
 * already rejected.
 */
import fc from 'fast-check';
import type { IDataObject, IWorkflowBase } from 'n8n-workflow';

import type { Emulator } from '../../devkit/emulator';
import { startEmulator } from '../../devkit/emulator';
import { nodeName, run, workflowFrom } from '../../devkit/engine/fixtures';
import { account, leadImportProblem, placesContaining } from '../../devkit/reliability/audit';
import { anyItemValue, writtenPhone } from './support/arbitraries';
import { keyWithAllScopes, sentinelKey } from '../../devkit/reliability/keys';
import { libraryCountry, libraryReadsTwoWays } from '../../devkit/phone/oracle';
import type { LeadOptions } from './support/leadModel';
import { API_REJECTED, LOCAL_ERROR, expectedLead, textOf } from './support/leadModel';
import { ResultsCollector } from '../../devkit/reliability/results';
import { Tally } from '../../devkit/reliability/tally';

const apiKey = sentinelKey('fuzz: import lead');
const results = new ResultsCollector('fuzz-import-lead');
let emulator: Emulator;

beforeAll(async () => {
	emulator = await startEmulator({ rateLimit: false, keys: keyWithAllScopes(apiKey) });
});
afterAll(async () => {
	await emulator.stop();
	results.write();
});

type FuzzItem = Record<string, unknown> & { tag: string };

function importWorkflow(items: FuzzItem[], options: LeadOptions & IDataObject): IWorkflowBase {
	const { clearLegalBasis, ...nodeOptions } = options;
	return workflowFrom('importLeads', {
		items: items as IDataObject[],
		parameters: {
			additionalFields: {
				name: '={{ $json.name }}',
				campaignId: '={{ $json.campaign }}',
				contactType: '={{ $json.tag }}',
				legalBasis: '={{ $json.legal }}',
			},
			clearFields: clearLegalBasis ? ['legalBasis'] : [],
			options: nodeOptions,
		},
	});
}

/**
 * The lead model's expectation, but a phone the library reads as two valid numbers (issue 42:
 * 4915123456789 in Germany) fails locally whether Validate Phone is on or off.
 */
function expectedFor(item: FuzzItem, options: LeadOptions): ReturnType<typeof expectedLead> {
	const phone = textOf(item.phone)?.trim();
	const country = libraryCountry(options.defaultCountryCode) ?? undefined;
	return phone && libraryReadsTwoWays(phone, country)
		? { local: true }
		: expectedLead(item, options);
}

/** Runs one batch and checks everything that must hold whatever the values were. */
async function runBatch(items: FuzzItem[], options: LeadOptions & IDataObject, tally: Tally) {
	emulator.reset();
	const workflow = importWorkflow(items, options);
	const result = await run(workflow, { baseUrl: emulator.baseUrl, apiKey, requestsPerMinute: 0 });
	const accounting = account(items.length, result.output(nodeName(workflow)));
	const requests = emulator.requests;
	const bodies = requests.map((request) => JSON.parse(request.body) as IDataObject);
	tally.add({
		itemsIn: items.length,
		success: accounting.success.size,
		error: accounting.error.size,
		requestsSent: requests.length,
	});
	expect(result.error).toBeUndefined();
	expect(accounting.problems).toEqual([]);
	expect(accounting.missing).toEqual([]);
	expect(requests.map((request) => leadImportProblem(request.body)).filter(Boolean)).toEqual([]);
	expect(placesContaining(apiKey, { 'execution data': JSON.stringify(result.run) })).toEqual([]);
	return { accounting, requests, bodies };
}

describe('Import Lead with fuzzed item values', () => {
	const anyValues = new Tally('fuzz: any item values (types, nesting, odd text)', 'Import Lead');
	const shapes = new Tally(
		'fuzz: phone numbers in national and international shapes',
		'Import Lead',
	);
	const huge = new Tally('fuzz: 1 MB values', 'Import Lead');
	afterAll(() =>
		[anyValues, shapes, huge].forEach((tally, order) => results.add(order, tally.row)),
	);

	test('any values: one outcome per item, valid bodies, no request for a locally rejected value', async () => {
		const item = fc.record(
			{ phone: anyItemValue, name: anyItemValue, campaign: anyItemValue, legal: anyItemValue },
			{ requiredKeys: [] },
		);
		const options = fc.record({
			validatePhone: fc.boolean(),
			defaultCountryCode: fc.constantFrom(
				'',
				'1',
				'44',
				'+49',
				'0033',
				' 39 ',
				'7',
				'HU',
				'ar',
				'abc',
				'1234',
				'0',
			),
			clearLegalBasis: fc.boolean(),
		});
		await fc.assert(
			fc.asyncProperty(
				fc.array(item, { minLength: 1, maxLength: 6 }),
				options,
				async (values, opts) => {
					try {
						const items = values.map((value, index) => ({ ...value, tag: `item-${index}` }));
						const { accounting, requests, bodies } = await runBatch(items, opts, anyValues);
						items.forEach((input, index) => {
							const expected = expectedFor(input, opts);
							const sent = bodies.filter((body) => body.contact_type === input.tag);
							if (expected.local === true || (expected.local === 'maybe' && sent.length === 0)) {
								expect(sent).toEqual([]);
								expect(accounting.error.get(index)?.json.error).toMatch(LOCAL_ERROR);
								return;
							}
							expect(sent).toHaveLength(1);
							expect(expected.bodies).toContainEqual(sent[0]);
							if (!accounting.success.has(index)) {
								expect(accounting.error.get(index)?.json.error).toMatch(API_REJECTED);
							}
						});
						if (opts.validatePhone) expect(requests).toHaveLength(accounting.success.size);
					} catch (error) {
						anyValues.fail(error);
					}
				},
			),
			{ numRuns: 200 },
		);
	});

	test("phone shapes: each becomes libphonenumber's reading, or fails locally (no country code, or no valid number)", async () => {
		const item = fc.record({ phone: writtenPhone, dropCountryCode: fc.boolean() });
		await fc.assert(
			fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 8 }), async (values) => {
				try {
					const items = values.map(({ phone, dropCountryCode }, index) => ({
						phone: phone.written,
						dcc: dropCountryCode ? '' : (phone.defaultCountryCode ?? ''),
						tag: `item-${index}`,
					}));
					const options = { validatePhone: true, defaultCountryCode: '={{ $json.dcc }}' };
					const { accounting, bodies } = await runBatch(items, options, shapes);
					values.forEach(({ phone, dropCountryCode }, index) => {
						const sent = bodies.filter((body) => body.contact_type === `item-${index}`);
						if (dropCountryCode && phone.defaultCountryCode !== undefined) {
							expect(sent).toEqual([]);
							expect(accounting.error.get(index)?.json.error).toMatch(/has no country code/);
						} else if (phone.e164 === undefined) {
							expect(sent).toEqual([]);
							expect(accounting.error.get(index)?.json.error).toMatch(LOCAL_ERROR);
						} else {
							expect({ written: phone.written, sent: sent.map((body) => body.phone_e164) }).toEqual(
								{
									written: phone.written,
									sent: [phone.e164],
								},
							);
							expect(accounting.success.has(index)).toBe(true);
						}
					});
				} catch (error) {
					shapes.fail(error);
				}
			}),
			{ numRuns: 150 },
		);
	});

	test('1 MB values: sent when valid, refused with a short message when not', async () => {
		const MB = 1 << 20;
		const items: FuzzItem[] = [
			{ phone: `+${'4'.repeat(MB)}` },
			{ phone: 'x'.repeat(MB) },
			{ phone: `${' '.repeat(MB)}+14155550100` },
			{ phone: '+14155550101', name: 'n'.repeat(MB) },
			{ phone: '+14155550102', campaign: '€😀'.repeat(MB / 6) },
			{ phone: '+14155550103', name: { deep: 'd'.repeat(MB) } },
		].map((value, index) => ({ ...value, tag: `item-${index}` }));
		try {
			const options = { validatePhone: true, defaultCountryCode: '' };
			const { accounting, bodies } = await runBatch(items, options, huge);
			expect([...accounting.error.keys()].sort()).toEqual([0, 1, 5]);
			expect(bodies.map((body) => body.contact_type)).toEqual(['item-2', 'item-3', 'item-4']);
			expect(emulator.leads.get('+14155550101')?.name).toHaveLength(MB);
			expect(emulator.leads.get('+14155550102')?.campaign_id).toBe(items[4].campaign);
		} catch (error) {
			huge.fail(error);
		}
	});
});
