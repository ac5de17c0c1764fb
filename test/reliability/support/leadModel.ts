import type { IDataObject } from 'n8n-workflow';

import { normalizeCountryCode, normalizePhone } from '../../../nodes/LeadCallAccess/helpers/phone';

export const LOCAL_ERROR = /^(phone_e164|name|campaign_id|contact_type|legal_basis): /;
export const API_REJECTED = /^The API rejected the lead \(422\): /;

/** The text a field value stands for, as a user would expect: numbers and booleans as written. */
export function textOf(value: unknown): string | undefined {
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
 * What the node must do with one item: fail it locally (no request) or send this body.
 * Phone normalisation itself is checked against an independent oracle elsewhere (writtenPhone).
 */
export function expectedLead(
	item: { phone?: unknown; name?: unknown; campaign?: unknown; legal?: unknown; tag: string },
	options: LeadOptions,
): { local: true } | { local: false; body: IDataObject } {
	const phone = textOf(item.phone)?.trim();
	const name = textOf(item.name)?.trim();
	const campaign = textOf(item.campaign)?.trim();
	const legal = textOf(item.legal)?.trim();
	if (phone === undefined || phone === '' || name === undefined || campaign === undefined) {
		return { local: true };
	}
	if (legal === undefined || (options.clearLegalBasis && legal !== '')) return { local: true };
	const normalized = normalizePhone(phone, normalizeCountryCode(options.defaultCountryCode));
	if (!normalized.ok && options.validatePhone) return { local: true };
	const body: IDataObject = { phone_e164: normalized.ok ? normalized.e164 : phone };
	if (name !== '') body.name = name;
	if (campaign !== '') body.campaign_id = campaign;
	body.contact_type = item.tag;
	if (options.clearLegalBasis) body.legal_basis = null;
	else if (legal !== '') body.legal_basis = legal;
	return { local: false, body };
}
