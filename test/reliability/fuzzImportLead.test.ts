/**
 * Import Lead with fuzzed item values (fast-check): wrong types, nesting, empty and odd
 * strings, 1 MB strings, and phone numbers as people write them (devkit/phone/oracle.ts; how
 * each written form is read is test/unit/phoneOracle.test.ts's). Whatever the input, every
 * item ends in exactly one output with a clear message, every body the API receives is a valid
 * LeadImport, and no request is spent on a value the node already rejected.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { leadImportProblem } from '../../devkit/reliability/audit';
import { anyItemValue } from './support/arbitraries';
import { useHarness } from './support/harness';
import type { LeadOptions } from './support/leadModel';
import { API_REJECTED, LOCAL_ERROR, expectedLead } from './support/leadModel';

const { emulator, property } = useHarness('fuzz-import-lead');
const COUNTRY_CODES = ['', '1', '44', '+49', '0033', ' 39 ', '7', 'HU', 'ar', 'abc', '1234', '0'];

/**
 * Imports the values as items, each tagged by its index (sent as its contact type): the checks
 * of every run, then the bodies the API received, each a valid LeadImport.
 */
async function importBatch(
	{ runOnce }: ReturnType<typeof property>,
	values: object[],
	{ clearLegalBasis, ...options }: LeadOptions,
) {
	const items = values.map((value, index) => ({ ...value, tag: `item-${index}` }));
	const { accounting, requests } = await runOnce('importLeads', items, {
		additionalFields: {
			name: '={{ $json.name }}',
			campaignId: '={{ $json.campaign }}',
			contactType: '={{ $json.tag }}',
			legalBasis: '={{ $json.legal }}',
		},
		clearFields: clearLegalBasis ? ['legalBasis'] : [],
		options: options as IDataObject,
	});
	expect(requests.map((request) => leadImportProblem(request.body)).filter(Boolean)).toEqual([]);
	const bodies = requests.map((request) => JSON.parse(request.body) as IDataObject);
	return { items, accounting, requests, bodies };
}

describe('Import Lead with fuzzed item values', () => {
	const anyValues = property('fuzz: any item values (types, nesting, odd text)', 'Import Lead');
	const huge = property('fuzz: 1 MB values', 'Import Lead');

	test('any values: one outcome per item, valid bodies, no request for a locally rejected value', async () => {
		const item = fc.record(
			{ phone: anyItemValue, name: anyItemValue, campaign: anyItemValue, legal: anyItemValue },
			{ requiredKeys: [] },
		);
		const options = fc.record({
			validatePhone: fc.boolean(),
			defaultCountryCode: fc.constantFrom(...COUNTRY_CODES),
			clearLegalBasis: fc.boolean(),
		});
		const batch = anyValues.recorded(async (values: object[], opts: LeadOptions) => {
			const { items, accounting, requests, bodies } = await importBatch(anyValues, values, opts);
			items.forEach((input, index) => {
				const expected = expectedLead(input, opts);
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
		});
		await fc.assert(
			fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 6 }), options, batch),
			{ numRuns: 200 },
		);
	});

	test('1 MB values: sent when valid, refused with a short message when not', async () => {
		const MB = 1 << 20;
		const values = [
			{ phone: `+${'4'.repeat(MB)}` },
			{ phone: 'x'.repeat(MB) },
			{ phone: `${' '.repeat(MB)}+14155550100` },
			{ phone: '+14155550101', name: 'n'.repeat(MB) },
			{ phone: '+14155550102', campaign: '€😀'.repeat(MB / 6) },
			{ phone: '+14155550103', name: { deep: 'd'.repeat(MB) } },
		];
		await huge.recorded(async () => {
			const options = { validatePhone: true, defaultCountryCode: '' };
			const { accounting, bodies } = await importBatch(huge, values, options);
			expect([...accounting.error.keys()].sort()).toEqual([0, 1, 5]);
			expect(bodies.map((body) => body.contact_type)).toEqual(['item-2', 'item-3', 'item-4']);
			expect(emulator().leads.get('+14155550101')?.name).toHaveLength(MB);
			expect(emulator().leads.get('+14155550102')?.campaign_id).toBe(values[4].campaign);
		})();
	});
});
