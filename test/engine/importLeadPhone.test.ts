/**
 * How Import Lead reads the Phone field, through n8n-core's engine against the emulator: national
 * numbers by the Default Country (a fixed one, or one per item), each node version's Default
 * Country field, and the numbers refused before any request.
 */
import libraryMetadata from 'libphonenumber-js/metadata.min.json';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { libraryCountry, libraryReading } from '../../devkit/phone/oracle';
import { LeadCallAccess } from '../../nodes/LeadCallAccess/LeadCallAccess.node';
import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';

describe('Import Lead reads phone numbers', () => {
	const { credentials, importLeads, sentLeads } = useEmulator();
	const sentPhones = () => sentLeads().map((body) => body.phone_e164);

	test('reads each national number as its Default Country does, given per item by an expression', async () => {
		const items = [
			{ phone: '06 20 123 4567', country: 'HU' },
			{ phone: '8 (912) 345-67-89', country: '7' },
			{ phone: '011 15-2345-6789', country: 'ar' },
			{ phone: '8 10 36 20 123 4567', country: 'RU' },
			{ phone: '+44 (0)20 7946 0958 ext. 12', country: '' },
			// A number, not text: as a spreadsheet column holds it.
			{ phone: 4155552673, country: '1' },
		];
		const result = await importLeads(items, { defaultCountryCode: '={{ $json.country }}' });
		expect(result.errors).toEqual([]);
		const expected = items.map(({ phone, country }) => {
			const reading = libraryReading(String(phone), libraryCountry(country) ?? undefined);
			return reading.possible && reading.valid ? reading.e164 : 'not a valid number';
		});
		expect(sentPhones()).toEqual(expected);
	});

	test.each([
		[2, '36', 'the text field saved by versions 1 and 2: a calling code'],
		[3, 'HU', 'the list of version 3'],
		[3, '={{ "36" }}', 'an expression giving a calling code in version 3'],
	])('version %i Default Country %j (%s)', async (version, defaultCountryCode) => {
		const workflow = workflowFrom('importLeads', {
			items: [{ phone: '06 20 123 4567' }],
			parameters: { options: { defaultCountryCode } },
		});
		workflow.nodes.find((node) => node.name === 'Import Lead')!.typeVersion = version;
		const result = await run(workflow, credentials());
		expect(result.errors).toEqual([]);
		expect(sentPhones()).toEqual([libraryReading('06 20 123 4567', 'HU').e164]);
	});

	test('version 3 lists every country libphonenumber knows, by name, for Default Country', () => {
		const options = new LeadCallAccess().description.properties.find(
			(property) => property.name === 'options' && property.type === 'collection',
		)?.options as INodeProperties[];
		const list = options.find(
			(option) => option.name === 'defaultCountryCode' && option.type === 'options',
		);
		const values = (list?.options as INodePropertyOptions[]).map((option) => option.value);
		expect(values).toContain('');
		expect(values.filter((value) => value !== '').sort()).toEqual(
			Object.keys(libraryMetadata.countries).sort(),
		);
		expect(list?.options).toContainEqual({ name: 'Hungary (+36)', value: 'HU' });
	});

	test('with Validate Phone off, a number whose 00 is not calling abroad still fails before any request; others are sent as read', async () => {
		const result = await importLeads(
			[
				{ phone: '00 1 415 555 2671', name: '00 in the US' },
				{ phone: '011 44 20 7946 0958', name: '011 in the US' },
				{ phone: '415 555 01', name: 'too short' },
			],
			{ defaultCountryCode: 'US', validatePhone: false },
		);
		expect(sentPhones()).toEqual([
			libraryReading('011 44 20 7946 0958', 'US').e164,
			libraryReading('415 555 01', 'US').e164,
		]);
		expect(result.errors.map((item) => [item.name, item.error])).toEqual([
			[
				'00 in the US',
				'Phone: "00 1 415 555 2671" starts with 00, which is not how United States (+1), the Default Country, calls abroad (it dials 011): if it is an international number, write it with + instead of 00 (+1 415 555 2671); if not, check it',
			],
		]);
	});
});
