import fc from 'fast-check';

import { writtenNumbers } from '../../../devkit/phone/oracle';

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
	{ arbitrary: fc.constantFrom(...writtenNumbers().map(({ text }) => text)), weight: 2 },
	{ arbitrary: fc.integer(), weight: 1 },
	{ arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
	{ arbitrary: fc.boolean(), weight: 1 },
	{ arbitrary: fc.constant(null), weight: 1 },
	{ arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
	{ arbitrary: fc.array(fc.string(), { maxLength: 3 }), weight: 1 },
	{ arbitrary: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }), weight: 1 },
);
