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
import { MAX_NATIONAL_LENGTH, MIN_NATIONAL_LENGTH, numberPart } from './phoneText';

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
