/**
 * Phone numbers a spreadsheet stored as numbers: "62812345678.0" (a decimal) and
 * "6.2812345678E10" (scientific notation). Each is read as the whole number it stands for, never
 * with its decimals as more digits, or refused with the reason. The expected number is what
 * libphonenumber-js reads from the whole number's digits, never the node's own reading.
 */
import type { CountryCode } from 'libphonenumber-js';

import { normalizePhone } from '../../nodes/LeadCallAccess/helpers/phone';
import {
	EXAMPLE_COUNTRIES,
	exampleFormats,
	libraryReading,
	libraryReadsTwoWays,
} from '../../devkit/phone/oracle';

/** What a spreadsheet holding `digits` as a number may show instead. */
const storedForms = (digits: string) => ({
	decimal: `${digits}.0`,
	'two decimals': `${digits}.00`,
	'decimal comma': `${digits},0`,
	scientific: `${digits[0]}.${digits.slice(1)}E${digits.length - 1}`,
	'scientific with +': `${digits[0]}.${digits.slice(1)}E+${digits.length - 1}`,
});

/** Every example number as a sheet holds it: international digits without the +. */
const cases = EXAMPLE_COUNTRIES.flatMap((country) => {
	const digits = exampleFormats(country).international.replace(/\D/g, '');
	return Object.entries(storedForms(digits)).map(([form, text]) => ({
		country,
		digits,
		form,
		text,
	}));
});

test('covers every example number in every stored form', () => {
	expect(cases.length).toBeGreaterThan(1000);
});

test.each(['', 'country'])(
	'with Default Country %j, a stored number is read as its whole number or refused, never as another',
	(defaultCountry) => {
		const wrong = cases.flatMap(({ country, digits, form, text }) => {
			const dc = defaultCountry === '' ? undefined : (country as CountryCode);
			const library = libraryReading(digits, dc);
			const result = normalizePhone(text, dc ?? '');
			const oneReading = library.possible && library.valid && !libraryReadsTwoWays(digits, dc);
			const expected = oneReading ? library.e164 : undefined;
			const read = result.ok ? result.e164 : undefined;
			// Refusing is right when the library finds no valid number, or two (4915123456789 in
			// Germany: +49 4915123456789 or +49 15123456789); reading, only as it reads.
			return read === expected || (read === undefined && expected === undefined)
				? []
				: [{ country, form, text, read, expected }];
		});
		expect(wrong.slice(0, 10)).toEqual([]);
	},
);

test.each([
	['6.28123E+10', 'is in scientific notation, which lost its last digits'],
	['6,2812345678E9', 'is a decimal number, not a phone number'],
	['62812345678.5', 'is a decimal number, not a phone number'],
])('%j is refused: %s', (text, reason) => {
	const result = normalizePhone(text, 'ID');
	expect(result).toEqual({ ok: false, reason: expect.stringContaining(reason) });
});

test('a number grouped with dots is still read as written', () => {
	expect(normalizePhone('415.555.2671', 'US')).toEqual({ ok: true, e164: '+14155552671' });
	expect(normalizePhone('+62 812.3456.7890', '')).toMatchObject({ ok: true });
});
