/** The emulator itself: keys, scopes and POST /v1/leads (422 validation, upsert by phone). */
import { DEMO_KEYS } from '../../devkit/emulator';
import { importLead, read, get, useEmulators } from './kit';

const { emu, start } = useEmulators();

describe('keys and auth', () => {
	it('exposes demo keys in the real key format', () => {
		for (const key of Object.values(DEMO_KEYS)) expect(key).toMatch(/^pf_live_[A-Za-z0-9_-]{43}$/);
	});

	it('answers 401 for a missing, malformed or unknown key, with a Bearer challenge', async () => {
		const missing = await fetch(`${emu().baseUrl}/v1/calls`);
		expect(missing.status).toBe(401);
		expect(missing.headers.get('www-authenticate')).toBe('Bearer');
		expect(await read(missing)).toEqual({ detail: 'Not authenticated' });

		const malformed = await fetch(`${emu().baseUrl}/v1/calls`, {
			headers: { Authorization: `Token ${DEMO_KEYS.full}` },
		});
		expect(await read(malformed)).toEqual({ detail: 'Not authenticated' });

		const unknown = await get(`${emu().baseUrl}/v1/calls`, `pf_live_${'x'.repeat(43)}`);
		expect(unknown.status).toBe(401);
		expect(await read(unknown)).toEqual({ detail: 'Invalid API key' });
	});

	it('answers 403 naming the scope the operation needs', async () => {
		const leads = await importLead(emu(), { phone_e164: '+14155552671' }, DEMO_KEYS.noScopes);
		expect(leads.status).toBe(403);
		expect(await read(leads)).toEqual({ detail: 'API key lacks required scope: leads:write' });

		const calls = await get(`${emu().baseUrl}/v1/calls`, DEMO_KEYS.leadsOnly);
		expect(await read(calls)).toEqual({ detail: 'API key lacks required scope: calls:read' });

		const recording = await get(
			`${emu().baseUrl}/v1/calls/call_000001/recording`,
			DEMO_KEYS.callsOnly,
		);
		expect(recording.status).toBe(403);
		expect(await read(recording)).toEqual({
			detail: 'API key lacks required scope: recordings:read',
		});
		expect(emu().leads.size).toBe(0);
	});

	it('routes like FastAPI: 404 for unknown paths, 405 for wrong methods', async () => {
		expect((await get(`${emu().baseUrl}/v1/nope`)).status).toBe(404);
		const wrong = await get(`${emu().baseUrl}/v1/leads`);
		expect(wrong.status).toBe(405);
		expect(await read(wrong)).toEqual({ detail: 'Method Not Allowed' });
	});
});

describe('POST /v1/leads validation (422)', () => {
	it('reports malformed JSON as json_invalid with the error position', async () => {
		const response = await importLead(emu(), '{"phone_e164": }');
		expect(response.status).toBe(422);
		const [error] = (await read(response)).detail;
		expect(error).toMatchObject({
			type: 'json_invalid',
			loc: ['body', 15],
			msg: 'JSON decode error',
			input: {},
		});
		expect(error.ctx).toEqual({ error: 'Expecting value' });
	});

	it.each([
		['{"phone_e164" "+1"}', 14, "Expecting ':' delimiter"],
		['{"phone_e164": "+1",}', 20, 'Expecting property name enclosed in double quotes'],
		['{"phone_e164": "+1" "name"}', 20, "Expecting ',' delimiter"],
		['{"phone_e164": "+1', 15, 'Unterminated string starting at'],
		['{} x', 3, 'Extra data'],
		["{'phone_e164': 1}", 1, 'Expecting property name enclosed in double quotes'],
	])('locates JSON errors like Python: %s', async (text, pos, message) => {
		const [error] = (await read(await importLead(emu(), text))).detail;
		expect(error).toMatchObject({ loc: ['body', pos], ctx: { error: message } });
	});

	it('rejects a non-object body and an empty body', async () => {
		const array = await importLead(emu(), [{ phone_e164: '+14155552671' }]);
		expect((await read(array)).detail).toEqual([
			{
				type: 'model_attributes_type',
				loc: ['body'],
				msg: 'Input should be a valid dictionary or object to extract fields from',
				input: [{ phone_e164: '+14155552671' }],
			},
		]);
		const empty = await importLead(emu(), '');
		expect((await read(empty)).detail).toEqual([
			{ type: 'missing', loc: ['body'], msg: 'Field required', input: null },
		]);
	});

	it('treats a non-JSON content type as a raw body, as FastAPI does', async () => {
		const response = await importLead(
			emu(),
			'{"phone_e164":"+14155552671"}',
			DEMO_KEYS.full,
			'text/plain',
		);
		expect(response.status).toBe(422);
		expect((await read(response)).detail[0]).toMatchObject({
			type: 'model_attributes_type',
			loc: ['body'],
		});
	});

	it('reports every problem at once: missing phone and wrong types', async () => {
		const body = {
			name: 5,
			campaign_id: null,
			contact_type: ['x'],
			legal_basis: 'consent',
			extra: 1,
		};
		const response = await importLead(emu(), body);
		expect(response.status).toBe(422);
		expect((await read(response)).detail).toEqual([
			{ type: 'missing', loc: ['body', 'phone_e164'], msg: 'Field required', input: body },
			{
				type: 'string_type',
				loc: ['body', 'name'],
				msg: 'Input should be a valid string',
				input: 5,
			},
			{
				type: 'string_type',
				loc: ['body', 'contact_type'],
				msg: 'Input should be a valid string',
				input: ['x'],
			},
		]);
		const nullPhone = await importLead(emu(), { phone_e164: null });
		expect((await read(nullPhone)).detail[0]).toMatchObject({
			type: 'string_type',
			loc: ['body', 'phone_e164'],
		});
	});

	it('checks E.164 when strictPhone is on, and not when it is off', async () => {
		const response = await importLead(emu(), { phone_e164: '(415) 555-2671' });
		expect((await read(response)).detail).toEqual([
			{
				type: 'value_error',
				loc: ['body', 'phone_e164'],
				msg: 'Value error, phone_e164 must be an E.164 number such as +14155552671',
				input: '(415) 555-2671',
				ctx: { error: {} },
			},
		]);
		const lax = await start({ strictPhone: false, rateLimit: false });
		expect((await importLead(lax, { phone_e164: 'not a phone' })).status).toBe(201);
	});
});

describe('POST /v1/leads upsert', () => {
	it('creates, then updates by phone: omitted fields kept, null clears, unknown fields ignored', async () => {
		const first = await importLead(emu(), {
			phone_e164: '+14155552671',
			name: 'Ada',
			campaign_id: 'c1',
			foo: 'bar',
		});
		expect(first.status).toBe(201);
		const created = await read(first);
		expect(created).toMatchObject({
			id: 'lead_1',
			phone_e164: '+14155552671',
			name: 'Ada',
			campaign_id: 'c1',
			contact_type: null,
			legal_basis: null,
			created: true,
		});
		expect(created).not.toHaveProperty('foo');

		const second = await importLead(emu(), {
			phone_e164: '+14155552671',
			campaign_id: null,
			legal_basis: 'consent',
		});
		expect(second.status).toBe(201);
		expect(await read(second)).toMatchObject({
			id: 'lead_1',
			name: 'Ada',
			campaign_id: null,
			legal_basis: 'consent',
			created: false,
			created_at: created.created_at,
		});
		expect(emu().leads.size).toBe(1);
		expect(emu().leads.get('+14155552671')).toMatchObject({ writes: 2, name: 'Ada' });
		expect(emu().stats()).toMatchObject({ requests: 2, byStatus: { '201': 2 }, leads: 1 });
	});
});
