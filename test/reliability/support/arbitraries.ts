import fc from 'fast-check';

/** A country calling code and the length of its national significant numbers. */
interface Country {
	cc: string;
	digits: number;
	/** Italy: the national number keeps its leading 0 after the country code. */
	keepsTrunkZero?: boolean;
}

const COUNTRIES: Country[] = [
	{ cc: '1', digits: 10 },
	{ cc: '44', digits: 10 },
	{ cc: '49', digits: 11 },
	{ cc: '33', digits: 9 },
	{ cc: '39', digits: 10, keepsTrunkZero: true },
	{ cc: '61', digits: 9 },
	{ cc: '81', digits: 10 },
	{ cc: '91', digits: 10 },
	{ cc: '55', digits: 11 },
	{ cc: '7', digits: 10 },
	{ cc: '353', digits: 9 },
	{ cc: '972', digits: 9 },
	{ cc: '86', digits: 11 },
];

/** A phone number as people write it, the Default Country Code it needs, and its E.164 form. */
export interface WrittenPhone {
	written: string;
	/** undefined: the number is international and needs none. */
	defaultCountryCode?: string;
	e164: string;
}

const digitString = (length: number, first = '123456789') =>
	fc
		.tuple(
			fc.constantFrom(...first.split('')),
			fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length - 1, maxLength: length - 1 }),
		)
		.map(([head, tail]) => `${head}${tail.join('')}`);

/** Splits digits into groups of 2 to 4 joined by one separator, optionally bracketing the first. */
const grouped = (digits: string) =>
	fc
		.record({
			sizes: fc.array(fc.integer({ min: 2, max: 4 }), { minLength: 8, maxLength: 8 }),
			separator: fc.constantFrom(' ', '-', '.', '/', '  ', ''),
			bracketFirst: fc.boolean(),
		})
		.map(({ sizes, separator, bracketFirst }) => {
			const groups: string[] = [];
			for (let at = 0, i = 0; at < digits.length; i++) {
				groups.push(digits.slice(at, at + sizes[i % sizes.length]));
				at += sizes[i % sizes.length];
			}
			if (bracketFirst && groups.length > 1) groups[0] = `(${groups[0]})`;
			return groups.join(separator);
		});

const countryCodeOption = (cc: string) => fc.constantFrom(cc, `+${cc}`, `00${cc}`, ` ${cc} `);

function writtenIn(country: Country): fc.Arbitrary<WrittenPhone> {
	const nsn = country.keepsTrunkZero
		? digitString(country.digits - 1).map((rest) => `0${rest}`)
		: digitString(country.digits, country.cc === '1' ? '23456789' : '123456789');
	return nsn.chain((number) => {
		const e164 = `+${country.cc}${number}`;
		const national = country.keepsTrunkZero ? number : `0${number}`;
		const international = fc
			.tuple(
				fc.constantFrom('+', '00', '+ ', '00 '),
				fc.constantFrom(' ', '-', '', ' (0) ', ' (0)'),
				grouped(number),
			)
			.filter(([, gap]) => !gap.includes('(0)') || !country.keepsTrunkZero)
			.map(([prefix, gap, rest]) => ({ written: `${prefix}${country.cc}${gap}${rest}`, e164 }));
		const nationalForms =
			country.cc === '1'
				? fc
						.tuple(fc.constantFrom('', '1 ', '1-', '1'), grouped(number))
						.map(([p, rest]) => `${p}${rest}`)
				: grouped(national);
		const local = fc
			.tuple(nationalForms, countryCodeOption(country.cc))
			.map(([written, defaultCountryCode]) => ({ written, defaultCountryCode, e164 }));
		return fc.oneof(international, local);
	});
}

/** Valid numbers of many countries in international and national shapes. */
export const writtenPhone: fc.Arbitrary<WrittenPhone> = fc
	.constantFrom(...COUNTRIES)
	.chain(writtenIn);

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
