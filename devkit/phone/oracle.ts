/**
 * libphonenumber-js as the judge of phone numbers: how it reads a written number, and the
 * written numbers to ask it about (every example number it ships, in the forms and styles
 * people write). Shared by the unit oracle test, the reliability fuzz model and
 * `npm run phone:measure`. Nothing here uses the node's own normaliser.
 */
import fc from 'fast-check';
import type { CountryCode } from 'libphonenumber-js';
// The full ("max") metadata: it reads numbers as the default "min" one does, but judges validity by
// every number type of every country (min finds +49 12032024, from "12/03/2024", valid; max does not).
import { getCountryCallingCode, parsePhoneNumber } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/examples.mobile.json';
import libraryMetadata from 'libphonenumber-js/metadata.max.json';

type LibraryPlan = unknown[];
const metadata = libraryMetadata as unknown as {
	country_calling_codes: Record<string, string[]>;
	countries: Record<string, LibraryPlan>;
	nonGeographic: Record<string, LibraryPlan>;
};

/**
 * The country a Default Country value stands for, by the library's data: a two-letter code it
 * knows, or a calling code's main country. `null`: the value is neither.
 */
export function libraryCountry(value: string): CountryCode | undefined | null {
	const text = value.trim();
	if (text === '') return undefined;
	if (/^[a-z]{2}$/i.test(text) && metadata.countries[text.toUpperCase()]) {
		return text.toUpperCase() as CountryCode;
	}
	const main = /^(\+|00)?\d{1,3}$/.test(text)
		? metadata.country_calling_codes[text.replace(/^(\+|00)/, '')]?.[0]
		: undefined;
	return main ? (main as CountryCode) : null;
}

export interface LibraryReading {
	/** The E.164 number the library reads, if any. */
	e164?: string;
	/** Whether the library finds its length possible for its country. */
	possible: boolean;
	/** Whether the library finds it a valid number of its country (isValid). */
	valid: boolean;
}

/**
 * What libphonenumber-js reads in `text` with this default country. Without one the library
 * knows no international call prefix, not even 00: it reads only numbers written with +.
 */
export function libraryReading(text: string, defaultCountry?: CountryCode): LibraryReading {
	try {
		const number = parsePhoneNumber(text, defaultCountry ? { defaultCountry } : {});
		return { e164: number.number, possible: number.isPossible(), valid: number.isValid() };
	} catch {
		return { possible: false, valid: false };
	}
}

/**
 * The two numbers the library reads in `text` when it reads two valid ways with this default
 * country: written without +, its digits start with the country's own calling code, and both
 * the text read with the default country (what parsePhoneNumber gives) and the text with + before
 * its digits (the calling code, then the national number) are valid, different numbers. The node
 * refuses those (issue 42: a German mobile kept as 4915123456789). Undefined: one reading or none.
 */
export function libraryReadsTwoWays(
	text: string,
	defaultCountry?: CountryCode,
): string[] | undefined {
	if (!defaultCountry || /[+\uff0b]/.test(text)) return undefined;
	const national = libraryReading(text, defaultCountry);
	const withPlus = text.replace(/\p{Nd}/u, '+$&');
	const international = libraryReading(withPlus);
	const ownCode = `+${getCountryCallingCode(defaultCountry)}`;
	const both = national.valid && international.valid;
	return both && national.e164 !== international.e164 && international.e164!.startsWith(ownCode)
		? [national.e164!, international.e164!]
		: undefined;
}

/**
 * Written with a leading 00, punctuation between the zeros included ("0.0", "0 0": the library
 * reads only the digits). Where the library does not read that 00 as calling abroad (no Default
 * Country, or one that calls abroad otherwise) and finds no valid number, the node refuses it
 * even with Validate Phone off: the writer meant an international number.
 */
export const writtenWith00 = (text: string) => /^\D*0[^\d\p{L}]*0/u.test(text);

export const EXAMPLE_COUNTRIES = Object.keys(examples) as CountryCode[];

/** Calling codes of no country (+800 freephone, +882 networks...). */
export const NON_GEOGRAPHIC_CALLING_CODES = Object.keys(metadata.nonGeographic);

/** The digits a country dials before a calling code (00, 011, 8 10...), when it has one to write. */
function internationalPrefix(country: CountryCode): string | undefined {
	const plan = metadata.countries[country];
	const preferred = typeof plan[12] === 'string' ? plan[12] : plan[1];
	return typeof preferred === 'string' && /^[\d~]+$/.test(preferred)
		? preferred.replace(/~/g, ' ')
		: undefined;
}

export interface WrittenNumber {
	/** What the user typed. */
	text: string;
	/** The Default Country set, as the user sets it (two-letter code or calling code). */
	defaultCountry: string;
	/** The example's country and how it was written, to report by. */
	country: CountryCode;
	form: string;
}

/** The example number of a country in its national and international formats. */
export function exampleFormats(country: CountryCode) {
	const number = parsePhoneNumber(examples[country as keyof typeof examples], country);
	return {
		national: number.formatNational(),
		international: number.formatInternational(),
		callingCode: number.countryCallingCode as string,
	};
}

/** The ways CRMs and forms hold numbers: separators, brackets, extensions, words around them. */
export const CRM_STYLES: Record<string, (written: string) => string> = {
	dots: (written) => written.replace(/[\s-]+/g, '.'),
	dashes: (written) => written.replace(/\s+/g, '-'),
	slash: (written) => written.replace(/\s+/, '/'),
	'no separators': (written) => written.replace(/[^\d+]/g, ''),
	'bracketed first group': (written) =>
		written.replace(/^(\+?\d+)\s(\d+)/, (_, first, second) => `${first} (${second})`),
	'extension ext.': (written) => `${written} ext. 123`,
	'extension x': (written) => `${written} x45`,
	'extension #': (written) => `${written} #9`,
	'label before': (written) => `Tel: ${written}`,
	'words after': (written) => `${written} (mobile)`,
	'non-breaking spaces': (written) => written.replace(/ /g, '\u00a0'),
	'tel: link': (written) => `tel:${written.replace(/\s+/g, '-')}`,
};

/** Every example number, written in every form, with and without a Default Country. */
export function writtenNumbers(): WrittenNumber[] {
	const written: WrittenNumber[] = [];
	const add = (country: CountryCode, form: string, text: string, defaults: string[]) => {
		for (const defaultCountry of defaults) written.push({ text, defaultCountry, country, form });
	};
	const reference = exampleFormats('HU' as CountryCode);
	for (const country of EXAMPLE_COUNTRIES) {
		const { national, international, callingCode } = exampleFormats(country);
		const digits = international.replace(/^\+/, '');
		add(country, 'national', national, [country, callingCode, '']);
		add(country, 'international', international, [country, '']);
		add(country, '00', `00 ${digits}`, [country, '']);
		// As a spreadsheet keeps an international number without its + (issue 42).
		add(country, 'digits without +', digits.replace(/\D/g, ''), [country]);
		add(country, '+ (0)', international.replace(/^(\+\d+)\s/, '$1 (0)'), [country, '']);
		const prefix = internationalPrefix(country);
		if (prefix) {
			const abroad = reference.international.replace(/^\+/, `${prefix} `);
			add(country, 'international call prefix', abroad, [country]);
		}
		for (const [style, restyle] of Object.entries(CRM_STYLES)) {
			add(country, `national, ${style}`, restyle(national), [country]);
			add(country, `international, ${style}`, restyle(international), ['']);
		}
	}
	return written;
}

/**
 * Random digits after the prefixes that change a reading (national prefixes 0, 8, 06, 1, 15;
 * international 00, 011; +calling code; the calling code without +; non-geographic +800...),
 * with the country's two-letter code, its calling code or nothing as Default Country.
 */
export const randomWrittenNumber: fc.Arbitrary<WrittenNumber> = fc
	.record({
		country: fc.constantFrom(...EXAMPLE_COUNTRIES),
		digits: fc.stringMatching(/^\d{3,16}$/),
		prefix: fc.constantFrom(
			'',
			'0',
			'8',
			'06',
			'1',
			'15',
			'00',
			'011',
			'+',
			'cc',
			'9',
			'01',
			'+ng',
		),
		nonGeographic: fc.constantFrom(...NON_GEOGRAPHIC_CALLING_CODES),
		defaultCountry: fc.constantFrom('country', 'calling code', 'none'),
	})
	.map(({ country, digits, prefix, nonGeographic, defaultCountry }) => {
		const { callingCode } = exampleFormats(country);
		const text =
			prefix === '+'
				? `+${callingCode}${digits}`
				: prefix === '+ng'
					? `+${nonGeographic}${digits}`
					: `${prefix === 'cc' ? callingCode : prefix}${digits}`;
		const setting = { country, 'calling code': callingCode, none: '' }[defaultCountry];
		return { text, defaultCountry: setting, country, form: 'random' };
	});

/** A phone normaliser under test: the E.164 number it would send, or undefined when it refuses. */
export type Normaliser = (text: string, defaultCountry: string) => string | undefined;

export interface Verdict extends WrittenNumber {
	sent?: string;
	library: LibraryReading;
	/** The two valid numbers the library reads in the text, when it reads two: the node must refuse it. */
	twoWays?: string[];
	outcome: 'right' | 'refused' | 'wrong';
}

/**
 * Right: sends the number the library reads, and the library finds it possible and valid.
 * Refused: sends nothing. Wrong: sends anything else, or anything at all where the library reads
 * two valid numbers. A Default Country the library cannot resolve means the library reads the
 * number without one.
 */
export function judge(normalise: Normaliser, written: WrittenNumber): Verdict {
	const country = libraryCountry(written.defaultCountry) ?? undefined;
	const library = libraryReading(written.text, country);
	const twoWays = libraryReadsTwoWays(written.text, country);
	const sent = normalise(written.text, written.defaultCountry);
	const outcome =
		sent === undefined
			? 'refused'
			: !twoWays && sent === library.e164 && library.possible && library.valid
				? 'right'
				: 'wrong';
	return { ...written, sent, library, outcome, ...(twoWays && { twoWays }) };
}

export function tally(verdicts: Verdict[]): Record<Verdict['outcome'], number> {
	const counts = { right: 0, refused: 0, wrong: 0 };
	for (const verdict of verdicts) counts[verdict.outcome]++;
	return counts;
}
