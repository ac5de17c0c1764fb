/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The phone-number rules Import Lead needs, taken from libphonenumber-js's metadata at
 * development time. The node ships no runtime dependencies, so `npm run phone:metadata` writes
 * them into nodes/LeadCallAccess/helpers/phoneMetadata.ts, and a unit test fails when that
 * file and the installed libphonenumber-js disagree.
 *
 * Kept per numbering plan: what parsing a number needs (international call prefix, national
 * prefix for parsing and its transformation, the national number pattern that decides whether a
 * prefix was really there), the possible lengths, the leading digits that tell countries sharing a
 * calling code apart, and the number type patterns that decide validity (Validate Phone), from
 * the library's full ("max") metadata. Number formats and examples are left out.
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import type { PhoneMetadata, PhonePlan } from '../../nodes/LeadCallAccess/helpers/phoneMetadata';

/**
 * libphonenumber-js's full ("max") metadata: one array per numbering plan. It is the compact
 * ("min") one plus the number types of every plan (min keeps them only where a calling code is
 * shared), and isValid needs them: a number that fits the plan's pattern but none of its types
 * (+49 12032024, from "12/03/2024") is valid by min and not by max.
 */
interface LibraryMetadata {
	country_calling_codes: Record<string, string[]>;
	countries: Record<string, unknown[]>;
	nonGeographic: Record<string, unknown[]>;
}

// Positions in libphonenumber-js's metadata arrays (version 4 of its format: see its metadata.js).
const CALLING_CODE = 0;
const IDD_PREFIX = 1;
const NATIONAL_NUMBER_PATTERN = 2;
const POSSIBLE_LENGTHS = 3;
const NATIONAL_PREFIX = 5;
const NATIONAL_PREFIX_FOR_PARSING = 7;
const NATIONAL_PREFIX_TRANSFORM_RULE = 8;
const LEADING_DIGITS = 10;
const TYPES = 11;

export const PHONE_METADATA_FILE = join(
	__dirname,
	'../../nodes/LeadCallAccess/helpers/phoneMetadata.ts',
);

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function plan(entry: unknown[], name: string): PhonePlan {
	return [
		text(entry[CALLING_CODE]),
		name,
		text(entry[IDD_PREFIX]),
		text(entry[NATIONAL_NUMBER_PATTERN]),
		(entry[POSSIBLE_LENGTHS] as number[] | undefined) ?? [],
		// libphonenumber parses with the national prefix when no parsing rule is given.
		text(entry[NATIONAL_PREFIX_FOR_PARSING]) || text(entry[NATIONAL_PREFIX]),
		text(entry[NATIONAL_PREFIX_TRANSFORM_RULE]),
		text(entry[LEADING_DIGITS]),
		types(entry[TYPES]),
	];
}

/**
 * The patterns of the number types (fixed line, mobile, toll free...): a number is valid when it
 * fits one of them, with a length that type has (getNumberType), and where a calling code is
 * shared they tell the countries apart. Which type a number is does not matter here, so types
 * with the same lengths are kept as one pattern ("p1|p2"), and "" stands for the plan's own
 * lengths (the type has none of its own): about 5 % smaller than one entry per type.
 */
function types(value: unknown): PhonePlan[8] {
	if (!Array.isArray(value)) return [];
	const patternsByLengths = new Map<string, string[]>();
	for (const type of value as unknown[]) {
		// An empty pattern is a type with no numbers (or, for mobile, the same as fixed line).
		if (!Array.isArray(type) || typeof type[0] !== 'string' || type[0] === '') continue;
		const lengths = Array.isArray(type[1]) ? type[1].join(',') : '';
		const patterns = patternsByLengths.get(lengths) ?? [];
		if (!patterns.includes(type[0])) patterns.push(type[0]);
		patternsByLengths.set(lengths, patterns);
	}
	return [...patternsByLengths].map(([lengths, patterns]) => `${lengths}:${patterns.join('|')}`);
}

export function libraryVersion(): string {
	const manifest = JSON.parse(
		readFileSync(require.resolve('libphonenumber-js/package.json'), 'utf8'),
	) as { version: string };
	return manifest.version;
}

/** The rules, built from the installed libphonenumber-js. */
export function buildPhoneMetadata(): PhoneMetadata {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const library = require('libphonenumber-js/metadata.max.json') as LibraryMetadata;
	const names = new Intl.DisplayNames(['en'], { type: 'region' });
	const countries: Record<string, PhonePlan> = {};
	for (const [country, entry] of Object.entries(library.countries)) {
		countries[country] = plan(entry, names.of(country) ?? country);
	}
	const nonGeographic: Record<string, PhonePlan> = {};
	for (const [callingCode, entry] of Object.entries(library.nonGeographic)) {
		nonGeographic[callingCode] = plan(entry, '');
	}
	return {
		source: `libphonenumber-js ${libraryVersion()}`,
		callingCodes: library.country_calling_codes,
		countries,
		nonGeographic,
	};
}

/** The checked-in module's text (before formatting): the rules as one typed constant. */
export function phoneMetadataSource(): string {
	const metadata = buildPhoneMetadata();
	const lines = (record: Record<string, unknown>) =>
		Object.entries(record)
			.map(([key, value]) => `\t\t${JSON.stringify(key)}: ${JSON.stringify(value)},`)
			.join('\n');
	const source = `/**
 * Generated by \`npm run phone:metadata\` (devkit/phone/metadata.ts) from ${metadata.source}.
 * Do not edit: regenerate. test/unit/phoneMetadata.test.ts fails when this and the library disagree.
 */

/**
 * One numbering plan: calling code, English name, international call prefix (pattern), national
 * number pattern, possible national number lengths, national prefix for parsing (pattern), its
 * transformation, the leading digits that select this country among those sharing its code, and
 * its number types (fixed line, mobile...) as "lengths:pattern", types of the same lengths joined
 * into one pattern, no lengths meaning the plan's possible lengths.
 */
export type PhonePlan = [
	string,
	string,
	string,
	string,
	number[],
	string,
	string,
	string,
	string[],
];

export interface PhoneMetadata {
	source: string;
	/** Calling code -> countries using it, libphonenumber's main country first. */
	callingCodes: Record<string, string[]>;
	/** Two-letter country code -> its plan. */
	countries: Record<string, PhonePlan>;
	/** Calling codes of no country (+800, +882...) -> their plan. */
	nonGeographic: Record<string, PhonePlan>;
}

// One plan per line, as generated: smaller in the package than one value per line.
// prettier-ignore
export const PHONE_METADATA: PhoneMetadata = {
	source: ${JSON.stringify(metadata.source)},
	callingCodes: {
${lines(metadata.callingCodes)}
	},
	countries: {
${lines(metadata.countries)}
	},
	nonGeographic: {
${lines(metadata.nonGeographic)}
	},
};
`;
	return source;
}
