/** The number part of a written phone number: what people and spreadsheets put around it. */

// libphonenumber's bounds: longer input is not a phone number; national numbers have 2 to 17 digits.
const MAX_INPUT_LENGTH = 250;
export const MIN_NATIONAL_LENGTH = 2;
export const MAX_NATIONAL_LENGTH = 17;

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

/**
 * The number part of what was written: leading and trailing words ("Tel:", "(mobile)") and an
 * extension are set aside; anything else that is not digits, spaces, brackets, dots, dashes or
 * slashes means the text is not one phone number, and it is refused rather than guessed at.
 */
export function numberPart(raw: string): { text: string } | { problem: string } {
	const text = asciiDigits(raw.trim());
	if (text === '') return { problem: 'is empty' };
	if (text.length > MAX_INPUT_LENGTH) return { problem: 'is too long to be a phone number' };
	const stored = storedAsNumber(text);
	if (stored !== undefined) return stored;
	let start = text.search(/[+\d]/);
	if (start < 0)
		return {
			problem: 'contains no digits: map Phone to the column or field that holds the number',
		};
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
