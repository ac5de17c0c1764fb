import type { IDataObject } from 'n8n-workflow';

import {
	libraryCountry,
	libraryReading,
	libraryReadsTwoWays,
	writtenWith00,
} from '../../../devkit/phone/oracle';

const E164 = /^\+[1-9]\d{6,14}$/;

export const LOCAL_ERROR = /^(Phone|Name|Campaign ID|Contact Type|Legal Basis)[: ]/;
export const API_REJECTED = /^The API rejected the lead \(422\): /;

/** The text a field value stands for, as a user would expect: numbers and booleans as written. */
function textOf(value: unknown): string | undefined {
	if (value === undefined || value === null) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return undefined;
}

export interface LeadOptions {
	validatePhone: boolean;
	defaultCountryCode: string;
	/** Legal Basis listed in "Fields to Clear". */
	clearLegalBasis?: boolean;
}

/**
 * What the node may do with one item: fail it locally (no request), or send one of these bodies.
 * The phone number's expectation comes from libphonenumber-js, never from the node's normaliser:
 * - Validate Phone on: the library's reading when it is a possible, valid E.164 number (the node
 *   may still refuse text it does not take for one number, such as letters around digits);
 *   otherwise a local failure.
 * - Validate Phone off: the library's reading when E.164, or the text as written; a number
 *   written with 00 that the library finds no valid number in may also fail locally (it does
 *   when the library did not read the 00 as calling abroad).
 * - Either way, a number the library reads as two valid numbers (issue 42: 4915123456789 in
 *   Germany) fails locally.
 */
export function expectedLead(
	item: { phone?: unknown; name?: unknown; campaign?: unknown; legal?: unknown; tag: string },
	options: LeadOptions,
): { local: true } | { local: false | 'maybe'; bodies: IDataObject[] } {
	const phone = textOf(item.phone)?.trim();
	const name = textOf(item.name)?.trim();
	const campaign = textOf(item.campaign)?.trim();
	const legal = textOf(item.legal)?.trim();
	if (phone === undefined || phone === '' || name === undefined || campaign === undefined) {
		return { local: true };
	}
	if (legal === undefined || (options.clearLegalBasis && legal !== '')) return { local: true };
	const country = libraryCountry(options.defaultCountryCode) ?? undefined;
	if (libraryReadsTwoWays(phone, country)) return { local: true };
	const reading = libraryReading(phone, country);
	const readable = reading.e164 !== undefined && E164.test(reading.e164);
	let phones: string[];
	if (options.validatePhone) {
		if (!readable || !reading.possible || !reading.valid) return { local: true };
		phones = [reading.e164!];
	} else {
		phones = readable ? [reading.e164!, phone] : [phone];
	}
	const rest: IDataObject = {};
	if (name !== '') rest.name = name;
	if (campaign !== '') rest.campaign_id = campaign;
	rest.contact_type = item.tag;
	if (options.clearLegalBasis) rest.legal_basis = null;
	else if (legal !== '') rest.legal_basis = legal;
	const misread00 = writtenWith00(phone) && !(reading.possible && reading.valid);
	return {
		local: options.validatePhone || misread00 ? 'maybe' : false,
		bodies: phones.map((phone_e164) => ({ phone_e164, ...rest })),
	};
}
