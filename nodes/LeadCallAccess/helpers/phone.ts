/**
 * Phone numbers into E.164 the way libphonenumber reads them. The steps follow
 * libphonenumber-js's parser (its helpers' names are given where a step mirrors one), over the
 * rules generated from it into phoneMetadata.ts; test/unit/phoneOracle.test.ts compares the
 * result with the library's own for every example number it ships, in many writing styles.
 * Where the rules do not give one certain number, the number is refused with the reason.
 */
import { PHONE_METADATA } from './phoneMetadata';
import type { Plan } from './phoneRules';
import {
	callingCodePlan,
	checkLength,
	countryPlan,
	isValidNumber,
	lengthPlan,
	nationalNumberOf,
	otherReading,
	splitCallingCode,
} from './phoneRules';

// The number part of a written phone number: what people and spreadsheets put around it.

// libphonenumber's bounds: longer input is not a phone number; national numbers have 2 to 17 digits.
const MAX_INPUT_LENGTH = 250;
const MIN_NATIONAL_LENGTH = 2;
const MAX_NATIONAL_LENGTH = 17;

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

/** Digits, a decimal point and decimals ("62812345678.0"): a spreadsheet's number, not a phone's dots. */
const DECIMAL = /^\+?(\d{7,})[.,](\d+)$/;
/** Scientific notation ("6.2812345678E10", "6,28123E+10"), as spreadsheets show long numbers. */
const SCIENTIFIC = /^\+?(\d)(?:[.,](\d*))?e\+?(\d{1,2})$/i;

const FORMAT_AS_TEXT = 'format the column as text in the spreadsheet and write the number again';
const NOT_WHOLE = `is a decimal number, not a phone number: ${FORMAT_AS_TEXT}`;

/**
 * A phone number a spreadsheet stored as a number: read as the whole number it stands for, or
 * refused when that number is not certain, never read with the decimals as more digits. A long
 * run of digits then one dot is a decimal, not a number grouped with dots (those have groups).
 */
function storedAsNumber(text: string): { text: string } | { problem: string } | undefined {
	const decimal = DECIMAL.exec(text);
	if (decimal) {
		const decimals = decimal[2];
		if (/^0+$/.test(decimals)) return { text: text.replace(/[.,]\d+$/, '') };
		return { problem: NOT_WHOLE };
	}
	const scientific = SCIENTIFIC.exec(text);
	if (!scientific) return undefined;
	const [, first, decimals = '', exponent] = scientific;
	// 6.28123E+10 shows 6 digits of an 11-digit number: the spreadsheet rounded the rest away.
	if (decimals.length < Number(exponent)) {
		return {
			problem: `is in scientific notation, which lost its last digits: ${FORMAT_AS_TEXT}`,
		};
	}
	if (decimals.length > Number(exponent)) return { problem: NOT_WHOLE };
	return { text: `${text.startsWith('+') ? '+' : ''}${first}${decimals}` };
}

// An empty cell or a placeholder ("n/a", "-") is a row without a number, not a wrong mapping:
// one item cannot tell which, so the mapping is named for when every item fails alike.
const NO_NUMBER =
	'this item has no phone number. Fill it in, or filter out items without one before this node; if every item fails so, map Phone to the field that holds the numbers';
export const EMPTY_PHONE = `is empty: ${NO_NUMBER}`;

/**
 * The number part of what was written: leading and trailing words ("Tel:", "(mobile)") and an
 * extension are set aside; anything else that is not digits, spaces, brackets, dots, dashes or
 * slashes means the text is not one phone number, and it is refused rather than guessed at.
 */
function numberPart(raw: string): { text: string } | { problem: string } {
	const text = asciiDigits(raw.trim());
	if (text === '') return { problem: EMPTY_PHONE };
	if (text.length > MAX_INPUT_LENGTH) return { problem: 'is too long to be a phone number' };
	const stored = storedAsNumber(text);
	if (stored !== undefined) return stored;
	let start = text.search(/[+\d]/);
	if (start < 0) return { problem: `contains no digits: ${NO_NUMBER}` };
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

const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

/**
 * `always`: refused whether Validate Phone is on or off, because what was written is not the
 * number the library reads from it (a leading 00 that is not the way to call abroad), or is two
 * valid numbers (digits without + that start with the Default Country's calling code).
 */
export type PhoneResult =
	{ ok: true; e164: string } | { ok: false; reason: string; always?: boolean };

/** A country or calling code resolved to the country whose rules apply, or why it cannot be. */
type DefaultCountry = { country?: string; problem?: string };

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

/**
 * The E.164 form of a number written the way people write them: international (+, or the
 * international call prefix of the default country: 00, 011, 8 10...) or national, completed
 * with the Default Country (national prefix dropped or transformed as that country does). With
 * `validate` (Validate Phone), a number its country cannot have is refused: a length it never
 * uses (the message gives the lengths it does), or digits outside its numbering plan
 * (libphonenumber's isValid with this data). Digits without + that start with the Default
 * Country's calling code and read as two valid numbers are refused, whatever `validate` says.
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
	// Two valid readings: refused with Validate Phone off too. Off lets the service judge a number
	// the node finds invalid; here both are valid, so sending either would be the node's guess.
	const other = national ? otherReading(digits, plan) : undefined;
	if (other !== undefined) {
		const shorter = `+${plan.callingCode}${other}`;
		return { ok: false, always: true, reason: readsTwoWays(plan, e164, shorter) };
	}
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

// Why a number was refused, and what to write instead: the reasons Import Lead's errors give.

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

export function wrongLength(nationalNumber: string, plan: Plan, national: boolean): string {
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
export function unreadZeroZero(text: string, plan: Plan | undefined): string {
	const fix = `write it with + instead of 00 (${withPlus(text)})`;
	if (!plan)
		return `starts with 00, which is read as calling abroad only with a Default Country: ${fix}, or set the Default Country`;
	const dials = /^\d+$/.test(plan.internationalPrefix)
		? ` (it dials ${plan.internationalPrefix})`
		: '';
	return `starts with 00, which is not how ${place(plan, true)}, calls abroad${dials}: if it is an international number, ${fix}; if not, check it`;
}

export function notANumberThere(e164: string, plan: Plan, national: boolean): string {
	const read = `+${plan.callingCode} ${e164.slice(plan.callingCode.length + 1)}`;
	const fix = national ? `check it, or ${ANOTHER_COUNTRY}` : 'check it';
	const length = e164.length - plan.callingCode.length - 1;
	return `is not a valid number of ${place(plan, national)}: read as ${read}, but no fixed-line, mobile or other number there starts like that with ${length} digits: ${fix}`;
}

/**
 * Digits without + that start with the Default Country's own calling code and read as two valid
 * numbers (a German mobile kept as 4915123456789): which one was meant cannot be told.
 */
export function readsTwoWays(plan: Plan, whole: string, shorter: string): string {
	const country = plan.name || 'the Default Country';
	return `reads two ways with Default Country ${country} (+${plan.callingCode}), both valid numbers: ${whole} (all its digits as a number of ${country}) or ${shorter} (its first digits, ${plan.callingCode}, as the calling code): write it with + and the country code, as the one you mean`;
}
