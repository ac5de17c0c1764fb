/**
 * Phone numbers into E.164 the way libphonenumber reads them. The steps follow
 * libphonenumber-js's parser (its helpers' names are given where a step mirrors one), over the
 * rules generated from it into phoneMetadata.ts; test/unit/phoneOracle.test.ts compares the
 * result with the library's own for every example number it ships, in many writing styles.
 * Where the rules do not give one certain number, the number is refused with the reason.
 */
import type { PhonePlan } from './phonePlan';
import { PHONE_METADATA } from './phoneMetadata';

const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

/**
 * `always`: refused whether Validate Phone is on or off, because what was written is not the
 * number the library reads from it (a leading 00 that is not the way to call abroad).
 */
export type PhoneResult =
	{ ok: true; e164: string } | { ok: false; reason: string; always?: boolean };

/** A country or calling code resolved to the country whose rules apply, or why it cannot be. */
type DefaultCountry = { country?: string; problem?: string };

interface Plan {
	callingCode: string;
	name: string;
	internationalPrefix: string;
	nationalNumberPattern: string;
	possibleLengths: number[];
	nationalPrefixForParsing: string;
	nationalPrefixTransformRule: string;
	leadingDigits: string;
	/** Number types (fixed line, mobile...): a number fitting one of them is valid. */
	types: Array<{ lengths: number[]; pattern: string }>;
}

// libphonenumber's bounds: longer input is not a phone number; national numbers have 2 to 17 digits.
const MAX_INPUT_LENGTH = 250;
const MIN_NATIONAL_LENGTH = 2;
const MAX_NATIONAL_LENGTH = 17;
const MAX_CALLING_CODE_LENGTH = 3;

/** A generated plan (a compact tuple, see phoneMetadata.ts) with its parts named. */
function toPlan(plan: PhonePlan): Plan {
	return {
		callingCode: plan[0],
		name: plan[1],
		internationalPrefix: plan[2],
		nationalNumberPattern: plan[3],
		possibleLengths: plan[4],
		nationalPrefixForParsing: plan[5],
		nationalPrefixTransformRule: plan[6],
		leadingDigits: plan[7],
		// "lengths:pattern"; no lengths: the plan's
		types: plan[8].map((type) => {
			const separator = type.indexOf(':');
			const lengths = type.slice(0, separator);
			return {
				lengths: lengths === '' ? plan[4] : lengths.split(',').map(Number),
				pattern: type.slice(separator + 1),
			};
		}),
	};
}

function countryPlan(country: string): Plan | undefined {
	const plan = PHONE_METADATA.countries[country];
	return plan ? toPlan(plan) : undefined;
}

/** The plan libphonenumber selects for a calling code: its main country's, or the non-geographic one. */
function callingCodePlan(callingCode: string): Plan | undefined {
	const main = PHONE_METADATA.callingCodes[callingCode]?.[0];
	if (main !== undefined) return countryPlan(main);
	const nonGeographic = PHONE_METADATA.nonGeographic[callingCode];
	return nonGeographic ? toPlan(nonGeographic) : undefined;
}

const matchesEntirely = (text: string, pattern: string) =>
	new RegExp(`^(?:${pattern})$`).test(text);

type LengthCheck = 'IS_POSSIBLE' | 'TOO_SHORT' | 'TOO_LONG' | 'INVALID_LENGTH';

/** checkNumberLength */
function checkLength(nationalNumber: string, plan: Plan): LengthCheck {
	const lengths = plan.possibleLengths;
	if (lengths.length === 0) return 'IS_POSSIBLE';
	const length = nationalNumber.length;
	if (length < lengths[0]) return 'TOO_SHORT';
	if (length > lengths[lengths.length - 1]) return 'TOO_LONG';
	return lengths.includes(length) ? 'IS_POSSIBLE' : 'INVALID_LENGTH';
}

/** getNumberType, as far as "has a type" goes: the number fits one of the plan's number types. */
function hasNumberType(nationalNumber: string, plan: Plan): boolean {
	return (
		matchesEntirely(nationalNumber, plan.nationalNumberPattern) &&
		plan.types.some(
			({ lengths, pattern }) =>
				lengths.includes(nationalNumber.length) && matchesEntirely(nationalNumber, pattern),
		)
	);
}

/** isValid: a number type fits, or (where the data keeps no types) the plan's number pattern. */
function isValidNumber(nationalNumber: string, plan: Plan): boolean {
	return plan.types.length > 0
		? hasNumberType(nationalNumber, plan)
		: matchesEntirely(nationalNumber, plan.nationalNumberPattern);
}

/** getCountryByCallingCode: which of the countries sharing a calling code a number belongs to. */
function countryByCallingCode(callingCode: string, nationalNumber: string): string | undefined {
	const countries = PHONE_METADATA.callingCodes[callingCode];
	if (!countries) return undefined;
	if (countries.length === 1) return countries[0];
	return countries.find((country) => {
		const plan = countryPlan(country);
		if (!plan) return false;
		return plan.leadingDigits
			? nationalNumber.search(new RegExp(plan.leadingDigits)) === 0
			: hasNumberType(nationalNumber, plan);
	});
}

/** The plan that decides a number's possible lengths: its exact country's, else the code's. */
function lengthPlan(plan: Plan, nationalNumber: string): Plan {
	const country = countryByCallingCode(plan.callingCode, nationalNumber);
	return (country && countryPlan(country)) || plan;
}

/** extractNationalNumberFromPossiblyIncompleteNumber: drops (or transforms) the national prefix. */
function withoutNationalPrefix(digits: string, plan: Plan): string {
	if (!plan.nationalPrefixForParsing) return digits;
	const prefix = new RegExp(`^(?:${plan.nationalPrefixForParsing})`);
	const match = prefix.exec(digits);
	if (!match) return digits;
	const lastGroup = match.length - 1;
	const captured = lastGroup > 0 && Boolean(match[lastGroup]);
	if (plan.nationalPrefixTransformRule && captured) {
		return digits.replace(prefix, plan.nationalPrefixTransformRule);
	}
	return digits.slice(match[0].length);
}

/**
 * extractNationalNumber: the national prefix is dropped only when what is left still fits the
 * country's numbers (pattern and length); otherwise the digits were the number itself.
 */
function nationalNumberOf(digits: string, plan: Plan): string {
	const stripped = withoutNationalPrefix(digits, plan);
	if (stripped === digits) return digits;
	const pattern = plan.nationalNumberPattern;
	if (matchesEntirely(digits, pattern) && !matchesEntirely(stripped, pattern)) return digits;
	if (plan.possibleLengths.length > 0) {
		const check = checkLength(stripped, lengthPlan(plan, stripped));
		if (check === 'TOO_SHORT' || check === 'INVALID_LENGTH') return digits;
	}
	return stripped;
}

/** stripIddPrefix: the digits after the country's international call prefix (00, 011, 8~10...). */
function withoutInternationalPrefix(digits: string, pattern: string): string | undefined {
	const prefix = new RegExp(pattern).exec(digits);
	if (!prefix || prefix.index !== 0) return undefined;
	const rest = digits.slice(prefix[0].length);
	// A calling code never starts with 0: "00" then "0..." is not an international number.
	return rest.startsWith('0') ? undefined : rest;
}

/**
 * extractCountryCallingCodeFromInternationalNumberWithoutPlusSign: "36 20 123 4567" with
 * Hungary as the default is read as +36 when only that reading fits Hungary's numbers.
 */
function withoutOwnCallingCode(digits: string, plan: Plan): string | undefined {
	if (!digits.startsWith(plan.callingCode)) return undefined;
	const shorter = digits.slice(plan.callingCode.length);
	const whole = nationalNumberOf(digits, plan);
	const pattern = plan.nationalNumberPattern;
	const onlyShorterFits =
		!matchesEntirely(whole, pattern) && matchesEntirely(nationalNumberOf(shorter, plan), pattern);
	return onlyShorterFits || checkLength(whole, plan) === 'TOO_LONG' ? shorter : undefined;
}

type Split = { callingCode?: string; rest: string } | { problem: string };

/** extractCountryCallingCode */
function splitCallingCode(digits: string, defaultPlan: Plan | undefined): Split {
	let international = digits;
	if (!digits.startsWith('+')) {
		// Without a default country libphonenumber knows no international call prefix (not even 00).
		const afterPrefix =
			defaultPlan && withoutInternationalPrefix(digits, defaultPlan.internationalPrefix);
		if (afterPrefix === undefined || afterPrefix === digits) {
			const shorter = defaultPlan && withoutOwnCallingCode(digits, defaultPlan);
			return shorter ? { callingCode: defaultPlan.callingCode, rest: shorter } : { rest: digits };
		}
		international = `+${afterPrefix}`;
	}
	if (international[1] !== '0') {
		for (let end = 2; end - 1 <= MAX_CALLING_CODE_LENGTH && end <= international.length; end++) {
			const callingCode = international.slice(1, end);
			if (PHONE_METADATA.callingCodes[callingCode] || PHONE_METADATA.nonGeographic[callingCode]) {
				return { callingCode, rest: international.slice(end) };
			}
		}
	}
	return { problem: 'does not start with a known country calling code after the +' };
}

// Digits as other scripts write them (full-width, Arabic-Indic, Persian), as libphonenumber reads them.
const DIGIT_BLOCKS = [0xff10, 0x0660, 0x06f0];
function asciiDigits(text: string): string {
	return text
		.replace(/[\uff10-\uff19\u0660-\u0669\u06f0-\u06f9]/g, (digit) => {
			const code = digit.charCodeAt(0);
			const block = DIGIT_BLOCKS.find((start) => code >= start && code <= start + 9) ?? code;
			return String(code - block);
		})
		.replace(/\uff0b/g, '+');
}

const NUMBER_CHARACTERS = /^\+?[\d\s().\-/[\]\u2010-\u2015]*$/;
// An extension at the end ("ext. 12", "x12", "#12", ";ext=12"): the line is the number before it.
const EXTENSION = /^(.*\d)[\s,]*(?:;\s*ext=|ext(?:ension|n)?\.?|x|#)\s*:?\s*\d{1,7}#?$/i;

/**
 * The number part of what was written: leading and trailing words ("Tel:", "(mobile)") and an
 * extension are set aside; anything else that is not digits, spaces, brackets, dots, dashes or
 * slashes means the text is not one phone number, and it is refused rather than guessed at.
 */
function numberPart(raw: string): { text: string } | { problem: string } {
	const text = asciiDigits(raw.trim());
	if (text === '') return { problem: 'is empty' };
	if (text.length > MAX_INPUT_LENGTH) return { problem: 'is too long to be a phone number' };
	let start = text.search(/[+\d]/);
	if (start < 0) return { problem: 'contains no digits' };
	const bracket = /\(\s*$/.exec(text.slice(0, start));
	if (bracket) start = bracket.index;
	const rest = text.slice(start);
	let number = rest.replace(/\D+$/, '');
	// Words after the number are dropped, the bracket a number ends with is not: "+44 (20)".
	if (/^\s*\)/.test(rest.slice(number.length))) number += ')';
	number = EXTENSION.exec(number)?.[1] ?? number;
	if (!NUMBER_CHARACTERS.test(number)) {
		return number.lastIndexOf('+') > 0 && !/[^\d\s().\-/+]/.test(number)
			? { problem: "has a '+' that is not at the start" }
			: { problem: 'contains text that is not part of a phone number' };
	}
	if (!bracketsBalanced(number)) return { problem: 'has unbalanced brackets' };
	return { text: number };
}

function bracketsBalanced(text: string): boolean {
	let open = '';
	for (const character of text) {
		if (character === '(' || character === '[') {
			if (open) return false;
			open = character;
		} else if (character === ')' || character === ']') {
			if (open !== (character === ')' ? '(' : '[')) return false;
			open = '';
		}
	}
	return open === '';
}

/**
 * Default Country: a two-letter country code (HU, us) or a calling code (36, +1, 0044). A
 * calling code shared by several countries stands for libphonenumber's main country for it
 * (1: United States, 7: Russia, 44: United Kingdom).
 */
export function resolveDefaultCountry(raw: unknown): DefaultCountry {
	const text = raw === undefined || raw === null ? '' : String(raw).trim();
	if (text === '') return {};
	if (/^[a-z]{2}$/i.test(text)) {
		const country = text.toUpperCase();
		if (PHONE_METADATA.countries[country]) return { country };
	} else if (/^(\+|00)?\d{1,3}$/.test(text)) {
		const callingCode = text.replace(/^(\+|00)/, '');
		const main = PHONE_METADATA.callingCodes[callingCode]?.[0];
		if (main !== undefined) return { country: main };
	}
	return {
		problem: `the Default Country "${text.slice(0, 20)}" is neither a country's two-letter code (e.g. GB, US) nor a country calling code (e.g. 44, 1)`,
	};
}

/** The countries libphonenumber knows, by name, for the editor's Default Country list. */
export function countryOptions(): Array<{ name: string; value: string }> {
	return Object.entries(PHONE_METADATA.countries)
		.map(([country, [callingCode, name]]) => ({
			name: `${name} (+${callingCode})`,
			value: country,
		}))
		.sort((a, b) => a.name.localeCompare(b.name));
}

/** "8 or 9 digits", "10 digits", "5, 7 or 9 digits" */
function lengthsText(lengths: number[]): string {
	const list =
		lengths.length === 1
			? `${lengths[0]}`
			: `${lengths.slice(0, -1).join(', ')} or ${lengths[lengths.length - 1]}`;
	return `${list} digits`;
}

function place(plan: Plan, national: boolean): string {
	const where = plan.name ? `${plan.name} (+${plan.callingCode})` : `+${plan.callingCode}`;
	return national ? `${where}, the Default Country` : where;
}

// A national number that does not fit may be another country's: say how to write that one.
const ANOTHER_COUNTRY =
	"if it is from another country, write it with + and that country's code (e.g. +44 20 7946 0958)";

function wrongLength(nationalNumber: string, plan: Plan, national: boolean): string {
	const lengths = `${nationalNumber.length} digits, its numbers have ${lengthsText(plan.possibleLengths)}`;
	const fix = national ? `check it, or ${ANOTHER_COUNTRY}` : 'check it';
	return `is not a possible number of ${place(plan, national)} (${lengths}): ${fix}`;
}

/** The number as written, with + in place of its leading 00: what to write instead. */
const withPlus = (text: string) => text.replace(/^(\D*)0[\s.\-/]*0[\s.\-/]*/, '$1+');

/**
 * A leading 00 the number is not read with: without a Default Country libphonenumber reads no
 * prefix for calling abroad, and a country that calls abroad otherwise (011 in the US) reads 00
 * as the start of a national number, which then rarely exists.
 */
function unreadZeroZero(text: string, plan: Plan | undefined): string {
	const fix = `write it with + instead of 00 (${withPlus(text)})`;
	if (!plan)
		return `starts with 00, which is read as calling abroad only with a Default Country: ${fix}, or set the Default Country`;
	const dials = /^\d+$/.test(plan.internationalPrefix)
		? ` (it dials ${plan.internationalPrefix})`
		: '';
	return `starts with 00, which is not how ${place(plan, true)}, calls abroad${dials}: if it is an international number, ${fix}; if not, check it`;
}

function notANumberThere(e164: string, plan: Plan, national: boolean): string {
	const read = `+${plan.callingCode} ${e164.slice(plan.callingCode.length + 1)}`;
	const fix = national ? `check it, or ${ANOTHER_COUNTRY}` : 'check it';
	const length = e164.length - plan.callingCode.length - 1;
	return `is not a valid number of ${place(plan, national)}: read as ${read}, but no fixed-line, mobile or other number there starts like that with ${length} digits: ${fix}`;
}

/**
 * The E.164 form of a number written the way people write them: international (+, or the
 * international call prefix of the default country: 00, 011, 8 10...) or national, completed
 * with the Default Country (national prefix dropped or transformed as that country does). With
 * `validate` (Validate Phone), a number its country cannot have is refused: a length it never
 * uses (the message gives the lengths it does), or digits outside its numbering plan
 * (libphonenumber's isValid with this data).
 */
export function normalizePhone(
	raw: string,
	defaultCountry?: unknown,
	{ validate = true }: { validate?: boolean } = {},
): PhoneResult {
	const part = numberPart(raw);
	if ('problem' in part) return { ok: false, reason: part.problem };
	const digits = part.text.replace(/[^\d+]/g, '');
	if (digits.replace('+', '').length < MIN_NATIONAL_LENGTH) {
		return { ok: false, reason: 'is too short to be a phone number' };
	}

	const fallback = resolveDefaultCountry(defaultCountry);
	const defaultPlan = fallback.country ? countryPlan(fallback.country) : undefined;
	const split = splitCallingCode(digits, defaultPlan);
	if ('problem' in split) return { ok: false, reason: split.problem };
	const national = split.callingCode === undefined;
	const plan = national ? defaultPlan : callingCodePlan(split.callingCode!);
	// 00 was not read as calling abroad: the number is what the library reads only when it exists.
	const unreadPrefix = national && digits.startsWith('00');
	if (!plan && unreadPrefix) {
		return { ok: false, always: true, reason: unreadZeroZero(part.text, plan) };
	}
	if (!plan) {
		return {
			ok: false,
			reason: fallback.problem
				? `has no country code, and ${fallback.problem}`
				: 'has no country code: start it with + and the country code (e.g. +14155552671) or set the Default Country option',
		};
	}
	const nationalNumber = nationalNumberOf(split.rest, plan);
	const rules = lengthPlan(plan, nationalNumber);
	const possible = checkLength(nationalNumber, rules) === 'IS_POSSIBLE';
	if (unreadPrefix && !(possible && isValidNumber(nationalNumber, rules))) {
		return { ok: false, always: true, reason: unreadZeroZero(part.text, plan) };
	}
	if (nationalNumber.length < MIN_NATIONAL_LENGTH) {
		return { ok: false, reason: 'is too short to be a phone number' };
	}
	if (nationalNumber.length > MAX_NATIONAL_LENGTH) {
		return { ok: false, reason: 'is too long to be a phone number' };
	}
	const e164 = `+${plan.callingCode}${nationalNumber}`;
	if (validate && !possible) {
		return { ok: false, reason: wrongLength(nationalNumber, rules, national) };
	}
	if (validate && !isValidNumber(nationalNumber, rules)) {
		return { ok: false, reason: notANumberThere(e164, rules, national) };
	}
	if (!E164_PATTERN.test(e164)) {
		return { ok: false, reason: `is not a valid E.164 number after normalisation ("${e164}")` };
	}
	return { ok: true, e164 };
}
