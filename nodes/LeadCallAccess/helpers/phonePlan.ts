/** The shape of the generated phone rules (phoneMetadata.ts). */

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
