import fc from 'fast-check';

import {
	EXAMPLE_COUNTRIES,
	exampleFormats,
	libraryCountry,
	libraryReading,
	libraryReadsTwoWays,
} from '../../../devkit/phone/oracle';

/**
 * A phone number as people write it, the Default Country it needs, and the E.164 number
 * libphonenumber-js reads in it (undefined: the library finds no valid number there, or two, so
 * the node must refuse it).
 */
export interface WrittenPhone {
	written: string;
	/** undefined: the number is international and needs none. */
	defaultCountryCode?: string;
	e164?: string;
}

/**
 * Each country's example mobile number with its last digits changed, written nationally (with
 * the country's two-letter code or calling code as Default Country), internationally or with 00,
 * its groups joined by one separator. The expected number is the library's reading.
 */
export const writtenPhone: fc.Arbitrary<WrittenPhone> = fc
	.record({
		country: fc.constantFrom(...EXAMPLE_COUNTRIES),
		lastDigits: fc.stringMatching(/^\d{3}$/),
		form: fc.constantFrom('national', 'international', '00'),
		separator: fc.constantFrom(' ', '-', '.', '/', '  ', ''),
		defaultAs: fc.constantFrom('country', 'calling code', ' +calling code '),
	})
	.map(({ country, lastDigits, form, separator, defaultAs }) => {
		const { national, international, callingCode } = exampleFormats(country);
		const changed = (written: string) =>
			written
				.replace(
					/\d(\D*)\d(\D*)\d(\D*)$/,
					(_, a, b, c) => `${lastDigits[0]}${a}${lastDigits[1]}${b}${lastDigits[2]}${c}`,
				)
				.replace(/ /g, separator);
		if (form === 'national') {
			const defaultCountryCode = {
				country,
				'calling code': callingCode,
				' +calling code ': ` +${callingCode} `,
			}[defaultAs];
			const written = changed(national);
			return { written, defaultCountryCode, ...valid(written, defaultCountryCode) };
		}
		const written = changed(form === '00' ? `00 ${international.slice(1)}` : international);
		return { written, ...valid(written, '') };
	});

function valid(written: string, defaultCountry: string): { e164?: string } {
	const country = libraryCountry(defaultCountry) ?? undefined;
	const reading = libraryReading(written, country);
	const one = reading.possible && reading.valid && !libraryReadsTwoWays(written, country);
	return one ? { e164: reading.e164 } : {};
}

/** Text that tests encoders: control characters, lone surrogates, emoji, RTL, zero-width. */
export const oddText = fc.oneof(
	fc.string({ maxLength: 30 }),
	fc.string({ unit: 'binary', maxLength: 20 }),
	fc.string({ unit: 'grapheme', maxLength: 10 }),
	fc.constantFrom(
		'',
		' ',
		'\t\n\r',
		'\u0000',
		'\u200b',
		'\ufeff',
		'\u202eabc',
		'😀👩‍👩‍👧',
		'null',
		'undefined',
		'{{ $json }}',
		'=1+1',
		'"quoted"',
		'\\',
		'</script>',
		'Robert"); DROP TABLE leads;--',
	),
);

/** Any value an item field can hold after JSON: wrong types, nesting, odd strings, numbers. */
export const anyItemValue: fc.Arbitrary<unknown> = fc.oneof(
	{ arbitrary: oddText, weight: 4 },
	{ arbitrary: writtenPhone.map((phone) => phone.written), weight: 2 },
	{ arbitrary: fc.integer(), weight: 1 },
	{ arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
	{ arbitrary: fc.boolean(), weight: 1 },
	{ arbitrary: fc.constant(null), weight: 1 },
	{ arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
	{ arbitrary: fc.array(fc.string(), { maxLength: 3 }), weight: 1 },
	{ arbitrary: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }), weight: 1 },
);
