/**
 * POST /v1/leads: body parsing and validation with the exact error shapes FastAPI + pydantic v2
 * produce, and the upsert by phone_e164.
 */
import { StoredLead } from './types';
import { json, Reply } from './http';

export interface ValidationErrorItem {
	type: string;
	loc: Array<string | number>;
	msg: string;
	input: unknown;
	ctx?: Record<string, unknown>;
}

const OPTIONAL_FIELDS = ['name', 'campaign_id', 'contact_type', 'legal_basis'] as const;

type LeadImport = Partial<Record<(typeof OPTIONAL_FIELDS)[number], string | null>>;

export const validationError = (detail: ValidationErrorItem[]): Reply => json(422, { detail });

const error = (type: string, loc: Array<string | number>, msg: string, input: unknown) => ({
	type,
	loc: ['body', ...loc],
	msg,
	input,
});

/**
 * Mirrors FastAPI's body handling: JSON is parsed when there is no Content-Type or an
 * application/json (or +json) one; any other content type leaves the raw text as the body, which
 * then fails the model check. An empty body is a missing body.
 */
function parseBody(raw: string, contentType = ''): { body: unknown } | ValidationErrorItem {
	if (raw === '') return { body: null };
	const mime = contentType.split(';')[0].trim().toLowerCase();
	if (!['', 'application/json'].includes(mime) && !/^application\/.+\+json$/.test(mime))
		return { body: raw };
	try {
		return { body: JSON.parse(raw) };
	} catch (parseError) {
		// FastAPI's json_invalid names where parsing stopped. The node only sends JSON.stringify's
		// output, so V8's position (or the end of the text when it names none) is close enough.
		const message = (parseError as Error).message;
		const pos = Number(/at position (\d+)/.exec(message)?.[1] ?? raw.length);
		return { ...error('json_invalid', [pos], 'JSON decode error', {}), ctx: { error: message } };
	}
}

/** The accepted import, or every problem found (pydantic reports all of them at once). */
function validate(raw: string, contentType: string | undefined, strictPhone: boolean) {
	const parsed = parseBody(raw, contentType);
	if (!('body' in parsed)) return [parsed];
	const body = parsed.body as Record<string, unknown> | null;
	if (body === null) return [error('missing', [], 'Field required', null)];
	if (typeof body !== 'object' || Array.isArray(body)) {
		const msg = 'Input should be a valid dictionary or object to extract fields from';
		return [error('model_attributes_type', [], msg, body)];
	}
	const detail: ValidationErrorItem[] = [];
	const phone = body.phone_e164;
	const notString = (field: string, value: unknown) =>
		detail.push(error('string_type', [field], 'Input should be a valid string', value));
	if (!('phone_e164' in body))
		detail.push(error('missing', ['phone_e164'], 'Field required', body));
	else if (typeof phone !== 'string') notString('phone_e164', phone);
	else if (strictPhone && !/^\+[1-9]\d{1,14}$/.test(phone)) {
		const msg = 'Value error, phone_e164 must be an E.164 number such as +14155552671';
		detail.push({ ...error('value_error', ['phone_e164'], msg, phone), ctx: { error: {} } });
	}
	for (const field of OPTIONAL_FIELDS) {
		const value = body[field];
		if (value !== undefined && value !== null && typeof value !== 'string') notString(field, value);
	}
	if (detail.length > 0) return detail;
	// Unknown fields are ignored; only the model's own fields survive, with omitted ones absent.
	const given = OPTIONAL_FIELDS.filter((field) => field in body).map((field) => [
		field,
		body[field],
	]);
	return { phone_e164: phone as string, ...(Object.fromEntries(given) as LeadImport) };
}

export class LeadStore {
	readonly leads = new Map<string, StoredLead>();
	private nextId = 1;

	/** Upsert by phone_e164: omitted fields keep their value, explicit null clears them. */
	upsert(input: LeadImport & { phone_e164: string }): { lead: StoredLead; created: boolean } {
		const now = new Date().toISOString();
		const existing = this.leads.get(input.phone_e164);
		const fields = Object.fromEntries(OPTIONAL_FIELDS.map((field) => [field, null]));
		const lead: StoredLead = existing ?? {
			id: `lead_${this.nextId++}`,
			phone_e164: input.phone_e164,
			...(fields as Record<(typeof OPTIONAL_FIELDS)[number], null>),
			created_at: now,
			updated_at: now,
			writes: 0,
		};
		for (const field of OPTIONAL_FIELDS) if (field in input) lead[field] = input[field] ?? null;
		lead.updated_at = now;
		lead.writes++;
		this.leads.set(lead.phone_e164, lead);
		return { lead, created: !existing };
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
	strict: boolean,
): Reply {
	const result = validate(raw, contentType, strict);
	if (Array.isArray(result)) return validationError(result);
	const { lead, created } = store.upsert(result);
	const { created_at, updated_at, ...answer } = lead;
	delete (answer as Partial<typeof lead>).writes;
	return json(201, { ...answer, created, created_at, updated_at });
}
