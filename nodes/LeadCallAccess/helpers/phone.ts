/**
 * Phone numbers into E.164 the way libphonenumber reads them. The steps follow
 * libphonenumber-js's parser (its helpers' names are given where a step mirrors one), over the
 * rules generated from it into phoneMetadata.ts; test/unit/phoneOracle.test.ts compares the
 * result with the library's own for every example number it ships, in many writing styles.
 * Where the rules do not give one certain number, the number is refused with the reason.
 */
import { PHONE_METADATA } from './phoneMetadata';
import { notANumberThere, readsTwoWays, unreadZeroZero, wrongLength } from './phoneMessages';
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
