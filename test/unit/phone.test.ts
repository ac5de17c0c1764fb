import { normalizePhone, resolveDefaultCountry } from '../../nodes/LeadCallAccess/helpers/phone';

// How numbers are read is checked against libphonenumber-js in phoneOracle.test.ts; this file
// checks the node's own decisions: how Default Country is given, and what a refusal says.
describe('resolveDefaultCountry', () => {
	test.each([
		['', undefined],
		['  ', undefined],
		['HU', 'HU'],
		['us', 'US'],
		[' gb ', 'GB'],
		['36', 'HU'],
		['+44', 'GB'],
		['0049', 'DE'],
		[' 39 ', 'IT'],
		// Shared calling codes stand for libphonenumber's main country for the code.
		['1', 'US'],
		['7', 'RU'],
		[7, 'RU'],
	])('%j -> %s', (value, country) => {
		expect(resolveDefaultCountry(value)).toEqual(country ? { country } : {});
	});

	test.each(['XX', 'abc', '1234', '0', '800', '+', 'United States'])('%j is refused', (value) => {
		expect(resolveDefaultCountry(value).problem).toMatch(
			/is neither a country's two-letter code .* nor a country calling code/,
		);
	});
});

describe('normalizePhone refusals', () => {
	test.each([
		['', undefined, /^is empty: this item has no phone number\. Fill it in/],
		['n/a', 'US', /^contains no digits: this item has no phone number\. Fill it in/],
		['4155552671', undefined, /has no country code: start it with \+/],
		['555 2671', 'abc', /has no country code, and the Default Country "abc" is neither/],
		['+1+4155552671', undefined, /'\+' that is not at the start/],
		['+44 20 7946 0958 or 020 7946 0959', undefined, /text that is not part of a phone number/],
		['+1 (415 555 2671', undefined, /unbalanced brackets/],
		['+0123456789', undefined, /known country calling code/],
		['+999 1234567', undefined, /known country calling code/],
		['1', 'US', /too short/],
		[`+1 ${'5'.repeat(300)}`, undefined, /too long/],
		[
			'+1234',
			undefined,
			/^is not a possible number of United States \(\+1\) \(3 digits, its numbers have 10 digits\): check it$/,
		],
		[
			'06 20 123',
			'HU',
			/^is not a possible number of Hungary \(\+36\), the Default Country \(7 digits, its numbers have 8 or 9 digits\): check it, or if it is from another country, write it with \+/,
		],
		// 06 is Hungary's national prefix, but what follows is too short: libphonenumber keeps it.
		[
			'06 20 123 45',
			'HU',
			/^is not a valid number of Hungary \(\+36\), the Default Country: read as \+36 062012345, but no fixed-line, mobile or other number there starts like that with 9 digits: check it, or if/,
		],
		[
			'+1 055 555 2671',
			undefined,
			/^is not a valid number of United States \(\+1\): read as \+1 0555552671, but no fixed-line, mobile or other number there starts like that with 10 digits: check it$/,
		],
		// A leading 00 that is not calling abroad: refused even with Validate Phone off (below).
		[
			'00 1 415 555 2671',
			'US',
			/^starts with 00, which is not how United States \(\+1\), the Default Country, calls abroad \(it dials 011\): if it is an international number, write it with \+ instead of 00 \(\+1 415 555 2671\); if not, check it$/,
		],
		[
			'Tel: 0044 20 7946 0958',
			undefined,
			/^starts with 00, which is read as calling abroad only with a Default Country: write it with \+ instead of 00 \(\+44 20 7946 0958\), or set the Default Country$/,
		],
		// The plan's pattern fits, but none of its number types (libphonenumber's "max" data).
		[
			'12/03/2024',
			'DE',
			/^is not a valid number of Germany \(\+49\), the Default Country: read as \+49 12032024, but no fixed-line, mobile or other number there starts like that with 8 digits: check it, or if/,
		],
	])('%j with Default Country %j', (raw, defaultCountry, reason) => {
		const result = normalizePhone(raw, defaultCountry);
		expect(result.ok ? result.e164 : result.reason).toMatch(reason);
	});

	// A leading 00 refused even with Validate Phone off: phoneOracle.test.ts, for every country.
	test('with Validate Phone off, a number its country cannot have is sent as read', () => {
		expect(normalizePhone('06 20 123 45', 'HU', { validate: false })).toEqual({
			ok: true,
			e164: '+36062012345',
		});
	});
});

// Issue 42: which numbers read one way or two is checked against libphonenumber-js in
// phoneOracle.test.ts; this is what the refusal says.
describe("digits without + that start with the Default Country's calling code", () => {
	test.each([true, false])(
		'two valid readings: refused naming both, with Validate Phone %s too',
		(validate) => {
			expect(normalizePhone('4915123456789', 'DE', { validate })).toEqual({
				ok: false,
				always: true,
				reason:
					'reads two ways with Default Country Germany (+49), both valid numbers: +494915123456789 (all its digits as a number of Germany) or +4915123456789 (its first digits, 49, as the calling code): write it with + and the country code, as the one you mean',
			});
		},
	);
});
