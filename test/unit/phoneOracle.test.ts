/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Import Lead's phone numbers against libphonenumber-js: every example number the library
 * ships, written nationally, internationally, with 00 or the country's own international call
 * prefix, and in the styles CRMs hold them (devkit/phone/oracle.ts), with and without a
 * Default Country. The expected numbers are the library's readings, never the node's.
 */
import fc from 'fast-check';
import type { CountryCode } from 'libphonenumber-js';

import { normalizePhone } from '../../nodes/LeadCallAccess/helpers/phone';
import type { Verdict } from '../../devkit/phone/oracle';
import {
	EXAMPLE_COUNTRIES,
	exampleFormats,
	judge,
	libraryCountry,
	libraryReading,
	randomWrittenNumber,
	writtenNumbers,
} from '../../devkit/phone/oracle';

/** E.164's own shape (ITU-T E.164: a country code not starting with 0, at most 15 digits), not the node's. */
const E164_SHAPE = /^\+[1-9]\d{1,14}$/;

const written = writtenNumbers();
const node = (validate: boolean) => (text: string, defaultCountry: string) => {
	const result = normalizePhone(text, defaultCountry, { validate });
	return result.ok ? result.e164 : undefined;
};
const show = (verdicts: Verdict[]) =>
	verdicts.slice(0, 20).map(({ text, defaultCountry, sent, library }) => ({
		text,
		defaultCountry,
		sent,
		library: library.e164,
		possible: library.possible,
		valid: library.valid,
	}));

describe('phone numbers against libphonenumber-js', () => {
	test('covers every example number in every form', () => {
		expect(new Set(written.map(({ country }) => country)).size).toBeGreaterThanOrEqual(245);
		expect(written.length).toBeGreaterThan(8000);
	});

	test('Validate Phone on: only numbers the library reads from the same text and finds possible and valid', () => {
		const verdicts = written.map((number) => judge(node(true), number));
		expect(show(verdicts.filter(({ outcome }) => outcome === 'wrong'))).toEqual([]);
	});

	test('refuses only numbers the library cannot read as one possible, valid E.164 number', () => {
		const refusedReadable = written
			.map((number) => judge(node(true), number))
			.filter(
				({ outcome, library, twoWays }) =>
					outcome === 'refused' &&
					!twoWays &&
					library.possible &&
					library.valid &&
					E164_SHAPE.test(library.e164 ?? ''),
			);
		expect(show(refusedReadable)).toEqual([]);
	});

	test('Validate Phone off: whatever is sent is what the library reads', () => {
		const differing = written
			.map((number) => judge(node(false), number))
			.filter(({ sent, library }) => sent !== undefined && sent !== library.e164);
		expect(show(differing)).toEqual([]);
	});

	test('digits the library reads as two valid numbers: refused exactly there, even with Validate Phone off, naming both', () => {
		const verdicts = written.map((number) => judge(node(true), number));
		const twoWays = verdicts.filter((verdict) => verdict.twoWays);
		// The German mobile kept without its + (4915123456789) is among them.
		expect(twoWays.map(({ text, defaultCountry }) => `${text} ${defaultCountry}`)).toContain(
			`${exampleFormats('DE' as CountryCode).international.replace(/\D/g, '')} DE`,
		);
		const misjudged = verdicts.flatMap(({ text, defaultCountry, twoWays }) =>
			[true, false].flatMap((validate) => {
				const result = normalizePhone(text, defaultCountry, { validate });
				const refusedTwoWays =
					!result.ok && result.always === true && /reads two ways/.test(result.reason);
				const named = twoWays?.every((number) => !result.ok && result.reason.includes(number));
				return refusedTwoWays === Boolean(twoWays) && named !== false
					? []
					: [{ text, defaultCountry, validate, twoWays, result }];
			}),
		);
		expect(misjudged.slice(0, 10)).toEqual([]);
	});

	test('a leading 00 the library does not read as calling abroad: refused even with Validate Phone off, saying to write +', () => {
		// Every example number with 00 and no Default Country (the library reads none), and a
		// Hungarian number with 00 in every country (the library reads 00 nationally where the
		// country calls abroad otherwise, e.g. 011 in the US).
		const hungarian = exampleFormats('HU' as CountryCode).international.slice(1);
		const cases = EXAMPLE_COUNTRIES.flatMap((country) => [
			{ text: `00 ${exampleFormats(country).international.slice(1)}`, defaultCountry: '' },
			{ text: `00 ${hungarian}`, defaultCountry: country },
		]);
		// Not read as calling abroad: no reading, or one with the Default Country's own calling code.
		const unread = cases.filter(({ text, defaultCountry }) => {
			const reading = libraryReading(text, libraryCountry(defaultCountry) ?? undefined);
			const ownCode =
				defaultCountry && `+${exampleFormats(defaultCountry as CountryCode).callingCode}`;
			const national = reading.e164 === undefined || (ownCode && reading.e164.startsWith(ownCode));
			return national && !(reading.possible && reading.valid);
		});
		expect(unread.filter(({ defaultCountry }) => defaultCountry === '')).toHaveLength(
			EXAMPLE_COUNTRIES.length,
		);
		expect(unread.length).toBeGreaterThan(EXAMPLE_COUNTRIES.length + 40);
		const accepted = unread
			.map(({ text, defaultCountry }) => ({
				text,
				defaultCountry,
				result: normalizePhone(text, defaultCountry, { validate: false }),
			}))
			.filter(
				({ result }) =>
					result.ok ||
					!result.always ||
					!/^starts with 00, .*write it with \+ instead of 00 \(\+\d/.test(result.reason),
			);
		expect(accepted).toEqual([]);
	});

	test("any digits after any prefix, in any country: the library's reading or refused", () => {
		fc.assert(
			fc.property(randomWrittenNumber, fc.boolean(), (number, validate) => {
				const verdict = judge(node(validate), number);
				const result = normalizePhone(number.text, number.defaultCountry, { validate });
				const refusedTwoWays = !result.ok && /reads two ways/.test(result.reason);
				expect(refusedTwoWays).toBe(Boolean(verdict.twoWays));
				if (verdict.sent === undefined) return;
				expect(verdict.sent).toBe(verdict.library.e164);
				if (validate) expect(verdict.outcome).toBe('right');
			}),
			{ numRuns: Number(process.env.PHONE_RANDOM_RUNS ?? 5000) },
		);
	});

	// The numbers that were sent wrong before (issue 18), read as the library reads them.
	test.each([
		['8 (912) 345-67-89', '7'],
		['06 20 123 4567', '36'],
		['8 029 491-19-11', '375'],
		['011 15-2345-6789', '54'],
		['01 23 45 6789', '225'],
		['8 10 36 20 123 4567', 'RU'],
		['011 44 20 7946 0958', 'US'],
		['(0)20 7946 0958', 'gb'],
	])('%s with Default Country %s', (text, defaultCountry) => {
		const expected = libraryReading(text, libraryCountry(defaultCountry) ?? undefined);
		expect(expected.possible && expected.valid).toBe(true);
		expect(normalizePhone(text, defaultCountry)).toEqual({ ok: true, e164: expected.e164 });
	});
});
