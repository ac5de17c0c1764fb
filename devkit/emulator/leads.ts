/**
 * POST /v1/leads: body parsing and validation with the exact error shapes FastAPI + pydantic v2
 * produce, and the upsert by phone_e164.
 */
import { StoredLead } from './types';
import { json, Reply } from './http';
import { describeJsonError } from './json-error';

export interface ValidationErrorItem {
	type: string;
	loc: Array<string | number>;
	msg: string;
	input: unknown;
	ctx?: Record<string, unknown>;
}

const OPTIONAL_FIELDS = ['name', 'campaign_id', 'contact_type', 'legal_basis'] as const;
type OptionalField = (typeof OPTIONAL_FIELDS)[number];

export type LeadImport = { phone_e164: string } & Partial<Record<OptionalField, string | null>>;

const E164 = /^\+[1-9]\d{1,14}$/;

export function validationError(detail: ValidationErrorItem[]): Reply {
	return json(422, { detail });
}

function stringType(loc: Array<string | number>, input: unknown): ValidationErrorItem {
	return { type: 'string_type', loc, msg: 'Input should be a valid string', input };
}

/**
 * Mirrors FastAPI's body handling: JSON is parsed when there is no Content-Type or an
 * application/json (or +json) one; any other content type leaves the raw text as the body, which
 * then fails the model check. An empty body is a missing body.
 */
function parseBody(
	raw: string,
	contentType: string | undefined,
): { body: unknown } | ValidationErrorItem {
	if (raw.length === 0)
		return { type: 'missing', loc: ['body'], msg: 'Field required', input: null };
	const mime = (contentType ?? '').split(';')[0].trim().toLowerCase();
	const isJson = mime === '' || mime === 'application/json' || /^application\/.+\+json$/.test(mime);
	if (!isJson) return { body: raw };
	try {
		return { body: JSON.parse(raw) };
	} catch {
		const { pos, msg } = describeJsonError(raw);
		return {
			type: 'json_invalid',
			loc: ['body', pos],
			msg: 'JSON decode error',
			input: {},
			ctx: { error: msg },
		};
	}
}

/** Returns the accepted import, or every problem found (pydantic reports all of them at once). */
export function validateLeadImport(
	raw: string,
	contentType: string | undefined,
	strictPhone: boolean,
): { ok: true; value: LeadImport } | { ok: false; detail: ValidationErrorItem[] } {
	const parsed = parseBody(raw, contentType);
	if ('type' in parsed) return { ok: false, detail: [parsed] };
	const body = parsed.body;
	if (body === null) {
		return {
			ok: false,
			detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
		};
	}
	if (typeof body !== 'object' || Array.isArray(body)) {
		const msg = 'Input should be a valid dictionary or object to extract fields from';
		return {
			ok: false,
			detail: [{ type: 'model_attributes_type', loc: ['body'], msg, input: body }],
		};
	}

	const fields = body as Record<string, unknown>;
	const detail: ValidationErrorItem[] = [];
	const phone = fields.phone_e164;
	if (!('phone_e164' in fields)) {
		detail.push({
			type: 'missing',
			loc: ['body', 'phone_e164'],
			msg: 'Field required',
			input: body,
		});
	} else if (typeof phone !== 'string') {
		detail.push(stringType(['body', 'phone_e164'], phone));
	} else if (strictPhone && !E164.test(phone)) {
		detail.push({
			type: 'value_error',
			loc: ['body', 'phone_e164'],
			msg: 'Value error, phone_e164 must be an E.164 number such as +14155552671',
			input: phone,
			ctx: { error: {} },
		});
	}
	for (const field of OPTIONAL_FIELDS) {
		const value = fields[field];
		if (value !== undefined && value !== null && typeof value !== 'string') {
			detail.push(stringType(['body', field], value));
		}
	}
	if (detail.length > 0) return { ok: false, detail };

	// Unknown fields are ignored; only the model's own fields survive, with omitted ones absent.
	const value: LeadImport = { phone_e164: phone as string };
	for (const field of OPTIONAL_FIELDS) {
		if (field in fields) value[field] = fields[field] as string | null;
	}
	return { ok: true, value };
}

export class LeadStore {
	readonly leads = new Map<string, StoredLead>();
	private nextId = 1;

	/** Upsert by phone_e164: omitted fields keep their value, explicit null clears them. */
	upsert(input: LeadImport): { lead: StoredLead; created: boolean } {
		const now = new Date().toISOString();
		const existing = this.leads.get(input.phone_e164);
		if (existing) {
			for (const field of OPTIONAL_FIELDS) {
				if (field in input) existing[field] = input[field] ?? null;
			}
			existing.updated_at = now;
			existing.writes++;
			return { lead: existing, created: false };
		}
		const lead: StoredLead = {
			id: `lead_${this.nextId++}`,
			phone_e164: input.phone_e164,
			name: input.name ?? null,
			campaign_id: input.campaign_id ?? null,
			contact_type: input.contact_type ?? null,
			legal_basis: input.legal_basis ?? null,
			created_at: now,
			updated_at: now,
			writes: 1,
		};
		this.leads.set(lead.phone_e164, lead);
		return { lead, created: true };
	}

	clear(): void {
		this.leads.clear();
		this.nextId = 1;
	}
}

export function importLead(
	store: LeadStore,
	raw: string,
	contentType: string | undefined,
	strictPhone: boolean,
): Reply {
	const result = validateLeadImport(raw, contentType, strictPhone);
	if (!result.ok) return validationError(result.detail);
	const { lead, created } = store.upsert(result.value);
	return json(201, {
		id: lead.id,
		phone_e164: lead.phone_e164,
		name: lead.name,
		campaign_id: lead.campaign_id,
		contact_type: lead.contact_type,
		legal_basis: lead.legal_basis,
		created,
		created_at: lead.created_at,
		updated_at: lead.updated_at,
	});
}
