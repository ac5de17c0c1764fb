/**
 * Phone numbers into E.164 (`+` and 7 to 15 digits, no leading zero in the country code).
 * Only formatting is fixed here; whether a number exists is the service's business.
 */
export const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

/** Countries whose national numbers keep their leading 0 after the country code (Italy, San Marino, Vatican). */
const KEEPS_TRUNK_ZERO = new Set(['39', '378', '379']);

const BRACKETED_TRUNK_ZERO = /\(\s*0\s*\)/g;

export type PhoneResult = { ok: true; e164: string } | { ok: false; reason: string };

export function normalizeCountryCode(raw: unknown): string | undefined {
	if (raw === undefined || raw === null) return undefined;
	const digits = String(raw)
		.trim()
		.replace(/^(\+|00)/, '');
	return digits === '' ? undefined : digits;
}

/**
 * Normalises a phone number written the way people write them: spaces, dots, dashes,
 * brackets and a `00` international prefix are accepted. A national number (no `+`) is
 * completed with `defaultCountryCode` after dropping its trunk `0`.
 */
export function normalizePhone(raw: string, defaultCountryCode?: string): PhoneResult {
	const text = raw.trim();
	if (text === '') return { ok: false, reason: 'is empty' };
	if (/[^\d\s().\-+/]/.test(text)) {
		return {
			ok: false,
			reason: 'contains characters other than digits, spaces, +, -, ., / and brackets',
		};
	}
	// "(0)" is the trunk 0 of "+44 (0)20 7946 0958": marked "t" until the country is known.
	let digits = text.replace(BRACKETED_TRUNK_ZERO, 't').replace(/[\s().\-/]/g, '');
	if (digits.lastIndexOf('+') > 0)
		return { ok: false, reason: "has a '+' that is not at the start" };

	let e164: string;
	if (digits.startsWith('+')) {
		e164 = digits;
	} else if (digits.startsWith('00')) {
		e164 = `+${digits.slice(2)}`;
	} else if (defaultCountryCode !== undefined) {
		if (!/^[1-9]\d{0,2}$/.test(defaultCountryCode)) {
			return {
				ok: false,
				reason: `cannot use the default country code "${defaultCountryCode}" (expected 1 to 3 digits)`,
			};
		}
		// NANP numbers are often written with their leading 1 ("1 415 555 2671").
		if (defaultCountryCode === '1' && digits.length === 11 && digits.startsWith('1')) {
			digits = digits.slice(1);
		}
		if (digits.startsWith('0') && !KEEPS_TRUNK_ZERO.has(defaultCountryCode))
			digits = digits.slice(1);
		e164 = `+${defaultCountryCode}${digits}`;
	} else {
		return {
			ok: false,
			reason:
				'has no country code: start it with + (e.g. +14155552671) or set the Default Country Code option',
		};
	}
	// Not dialled from abroad, except in countries whose numbers keep it (Italy: +39 06 ...).
	const keepsTrunkZero = [...KEEPS_TRUNK_ZERO].some((code) => e164.startsWith(`+${code}`));
	e164 = e164.replace(/t/g, keepsTrunkZero ? '0' : '');
	if (!E164_PATTERN.test(e164)) {
		const shown = e164.length > 20 ? `${e164.slice(0, 20)}..., ${e164.length - 1} digits` : e164;
		return { ok: false, reason: `is not a valid E.164 number after normalisation ("${shown}")` };
	}
	return { ok: true, e164 };
}
