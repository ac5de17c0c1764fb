/**
 * libphonenumber's parsing steps over the rules generated from it into phoneMetadata.ts (its
 * helpers' names are given where a step mirrors one). phone.ts puts them together.
 */
import type { PhonePlan } from './phoneMetadata';
import { PHONE_METADATA } from './phoneMetadata';

export interface Plan {
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

export function countryPlan(country: string): Plan | undefined {
	const plan = PHONE_METADATA.countries[country];
	return plan ? toPlan(plan) : undefined;
}

/** The plan libphonenumber selects for a calling code: its main country's, or the non-geographic one. */
export function callingCodePlan(callingCode: string): Plan | undefined {
	const main = PHONE_METADATA.callingCodes[callingCode]?.[0];
	if (main !== undefined) return countryPlan(main);
	const nonGeographic = PHONE_METADATA.nonGeographic[callingCode];
	return nonGeographic ? toPlan(nonGeographic) : undefined;
}

const matchesEntirely = (text: string, pattern: string) =>
	new RegExp(`^(?:${pattern})$`).test(text);

export type LengthCheck = 'IS_POSSIBLE' | 'TOO_SHORT' | 'TOO_LONG' | 'INVALID_LENGTH';

/** checkNumberLength */
export function checkLength(nationalNumber: string, plan: Plan): LengthCheck {
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
export function isValidNumber(nationalNumber: string, plan: Plan): boolean {
	return plan.types.length > 0
		? hasNumberType(nationalNumber, plan)
		: matchesEntirely(nationalNumber, plan.nationalNumberPattern);
}

/** What Validate Phone checks: a possible length and a number type of the number's own country. */
export function isValidReading(nationalNumber: string, plan: Plan): boolean {
	const rules = lengthPlan(plan, nationalNumber);
	return (
		checkLength(nationalNumber, rules) === 'IS_POSSIBLE' && isValidNumber(nationalNumber, rules)
	);
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
export function lengthPlan(plan: Plan, nationalNumber: string): Plan {
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
export function nationalNumberOf(digits: string, plan: Plan): string {
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

/**
 * Digits written without + (nor a prefix for calling abroad) that start with the default
 * country's own calling code, when they read as two valid numbers: the national number of the
 * whole digits (what libphonenumber sends) and that of the digits after the calling code (what
 * "+" and the digits read as). Undefined when only one reading is a valid number, or both are
 * the same number (US "1 415 555 2671": 1 is also the national prefix).
 */
export function otherReading(digits: string, plan: Plan): string | undefined {
	if (!digits.startsWith(plan.callingCode)) return undefined;
	const whole = nationalNumberOf(digits, plan);
	// "+" and the digits: read by the calling code's plan, as a number written with + is.
	const codePlan = callingCodePlan(plan.callingCode) ?? plan;
	const shorter = nationalNumberOf(digits.slice(plan.callingCode.length), codePlan);
	if (shorter === whole) return undefined;
	return isValidReading(whole, plan) && isValidReading(shorter, codePlan) ? shorter : undefined;
}

export type Split = { callingCode?: string; rest: string } | { problem: string };

/** extractCountryCallingCode */
export function splitCallingCode(digits: string, defaultPlan: Plan | undefined): Split {
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
