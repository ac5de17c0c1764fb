/** Why a number was refused, and what to write instead: the reasons Import Lead's errors give. */
import type { Plan } from './phoneRules';

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
