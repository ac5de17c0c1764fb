/**
 * Import Lead with fuzzed item values (fast-check): wrong types, nesting, empty and odd
 * strings, 1 MB strings, and phone numbers as people write them (devkit/phone/oracle.ts; how
 * each written form is read is test/unit/phoneOracle.test.ts's). Whatever the input, every
 * item ends in exactly one output with a clear message, every body the API receives is a valid
 * LeadImport, and no request is spent on a value the node already rejected.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import {
	libraryCountry,
	libraryReading,
	libraryReadsTwoWays,
	writtenWith00,
} from '../../devkit/phone/oracle';
import { leadImportProblem } from '../../devkit/reliability/audit';
import { anyItemValue } from './support/arbitraries';
import { useHarness } from './support/harness';

const E164 = /^\+[1-9]\d{6,14}$/;

const LOCAL_ERROR = /^(Phone|Name|Campaign ID|Contact Type|Legal Basis)[: ]/;
const API_REJECTED = /^The API rejected the lead \(422\): /;

/** The text a field value stands for, as a user would expect: numbers and booleans as written. */
function textOf(value: unknown): string | undefined {
	if (value === undefined || value === null) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return undefined;
}

interface LeadOptions {
	validatePhone: boolean;
	defaultCountryCode: string;
	/** Legal Basis listed in "Fields to Clear". */
	clearLegalBasis?: boolean;
}

/**
 * What the node may do with one item: fail it locally (no request), or send one of these bodies.
 * The phone number's expectation comes from libphonenumber-js, never from the node's normaliser:
 * - Validate Phone on: the library's reading when it is a possible, valid E.164 number (the node
 *   may still refuse text it does not take for one number, such as letters around digits);
 *   otherwise a local failure.
 * - Validate Phone off: the library's reading when E.164, or the text as written; a number
 *   written with 00 that the library finds no valid number in may also fail locally (it does
 *   when the library did not read the 00 as calling abroad).
 * - Either way, a number the library reads as two valid numbers (issue 42: 4915123456789 in
 *   Germany) fails locally.
 */
function expectedLead(
	item: { phone?: unknown; name?: unknown; campaign?: unknown; legal?: unknown; tag: string },
	options: LeadOptions,
): { local: true } | { local: false | 'maybe'; bodies: IDataObject[] } {
	const phone = textOf(item.phone)?.trim();
	const name = textOf(item.name)?.trim();
	const campaign = textOf(item.campaign)?.trim();
	const legal = textOf(item.legal)?.trim();
	if (phone === undefined || phone === '' || name === undefined || campaign === undefined) {
		return { local: true };
	}
	if (legal === undefined || (options.clearLegalBasis && legal !== '')) return { local: true };
	const country = libraryCountry(options.defaultCountryCode) ?? undefined;
	if (libraryReadsTwoWays(phone, country)) return { local: true };
	const reading = libraryReading(phone, country);
	const readable = reading.e164 !== undefined && E164.test(reading.e164);
	let phones: string[];
	if (options.validatePhone) {
		if (!readable || !reading.possible || !reading.valid) return { local: true };
		phones = [reading.e164!];
	} else {
		phones = readable ? [reading.e164!, phone] : [phone];
	}
	const rest: IDataObject = {};
	if (name !== '') rest.name = name;
	if (campaign !== '') rest.campaign_id = campaign;
	rest.contact_type = item.tag;
	if (options.clearLegalBasis) rest.legal_basis = null;
	else if (legal !== '') rest.legal_basis = legal;
	const misread00 = writtenWith00(phone) && !(reading.possible && reading.valid);
	return {
		local: options.validatePhone || misread00 ? 'maybe' : false,
		bodies: phones.map((phone_e164) => ({ phone_e164, ...rest })),
	};
}

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
