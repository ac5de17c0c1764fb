/** The emulator itself: keys, scopes, routing and POST /v1/leads (422 validation, upsert by phone). */
import { DEMO_KEYS } from '../../devkit/emulator';
import { importLead, read, useEmulators } from './kit';

const { emu, start } = useEmulators();
const { full, noScopes, leadsOnly, callsOnly } = DEMO_KEYS;
const lacks = (scope: string) => `API key lacks required scope: ${scope}`;

it.each([
	['GET /v1/calls', 401, 'Not authenticated', undefined],
	['GET /v1/calls', 401, 'Not authenticated', `Token ${full}`],
	['GET /v1/calls', 401, 'Invalid API key', `Bearer pf_live_${'x'.repeat(43)}`],
	['POST /v1/leads', 403, lacks('leads:write'), `Bearer ${noScopes}`],
	['GET /v1/calls', 403, lacks('calls:read'), `Bearer ${leadsOnly}`],
	['GET /v1/calls/call_000001/recording', 403, lacks('recordings:read'), `Bearer ${callsOnly}`],
	['GET /v1/nope', 404, 'Not Found', `Bearer ${full}`],
	['GET /v1/leads', 405, 'Method Not Allowed', `Bearer ${full}`],
])('%s: %i %s', async (route, status, detail, authorization) => {
	const [method, path] = route.split(' ');
	const response = await fetch(`${emu().baseUrl}${path}`, {
		method,
		headers: authorization === undefined ? {} : { Authorization: authorization },
		body: method === 'POST' ? '{"phone_e164": "+14155552671"}' : undefined,
	});
	expect([response.status, await read(response)]).toEqual([status, { detail }]);
	// FastAPI's HTTPBearer challenges on 401 only.
	expect(response.headers.get('www-authenticate')).toBe(status === 401 ? 'Bearer' : null);
	expect(emu().leads.size).toBe(0);
});

describe('POST /v1/leads validation (422)', () => {
	// Where parsing stopped; the parser's own words differ between Node versions.
	const json = (pos: number) => ({
		type: 'json_invalid',
		loc: ['body', pos],
		msg: 'JSON decode error',
		input: {},
		ctx: { error: expect.any(String) },
	});
	const wrong = { name: 5, campaign_id: null, contact_type: ['x'], legal_basis: 'consent', x: 1 };
	const stringType = (field: string, input: unknown) => ({
		type: 'string_type',
		loc: ['body', field],
		msg: 'Input should be a valid string',
		input,
	});
	const notObject = (input: unknown) => ({
		type: 'model_attributes_type',
		loc: ['body'],
		msg: 'Input should be a valid dictionary or object to extract fields from',
		input,
	});
	const lead = '{"phone_e164":"+14155552671"}';
	it.each([
		['{"phone_e164" "+1"}', json(14)],
		['{"phone_e164": "+1', json(18)],
		[`[${lead}]`, notObject([{ phone_e164: '+14155552671' }])],
		['', { type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
		['{"phone_e164": null}', stringType('phone_e164', null)],
		[
			'{"phone_e164": "(415) 555-2671"}',
			{
				type: 'value_error',
				loc: ['body', 'phone_e164'],
				msg: 'Value error, phone_e164 must be an E.164 number such as +14155552671',
				input: '(415) 555-2671',
				ctx: { error: {} },
			},
		],
	])('%s', async (body, error) => {
		const response = await importLead(emu(), body);
		expect([response.status, await read(response)]).toEqual([422, { detail: [error] }]);
	});

	it('reports every problem at once', async () => {
		expect(await read(await importLead(emu(), wrong))).toEqual({
			detail: [
				{ type: 'missing', loc: ['body', 'phone_e164'], msg: 'Field required', input: wrong },
				stringType('name', 5),
				stringType('contact_type', ['x']),
			],
		});
	});

	it('reads JSON as JSON only: a text/plain body is raw text, as FastAPI does', async () => {
		const response = await importLead(emu(), lead, full, 'text/plain');
		expect([response.status, await read(response)]).toEqual([422, { detail: [notObject(lead)] }]);
		// E.164 is checked only when strictPhone is on.
		const lax = await start({ strictPhone: false });
		expect((await importLead(lax, { phone_e164: 'not a phone' })).status).toBe(201);
	});
});

it('upserts by phone: omitted fields kept, null clears, unknown fields ignored', async () => {
	const phone = '+14155552671';
	const first = await importLead(emu(), { phone_e164: phone, name: 'Ada', campaign_id: 'c', x: 1 });
	const created = await read(first);
	expect([first.status, created]).toEqual([
		201,
		{
			id: 'lead_1',
			phone_e164: phone,
			name: 'Ada',
			campaign_id: 'c',
			contact_type: null,
			legal_basis: null,
			created: true,
			created_at: expect.any(String),
			updated_at: expect.any(String),
		},
	]);
	const again = await importLead(emu(), { phone_e164: phone, campaign_id: null, legal_basis: 'x' });
	expect([again.status, await read(again)]).toEqual([
		201,
		{
			...created,
			campaign_id: null,
			legal_basis: 'x',
			created: false,
			updated_at: expect.any(String),
		},
	]);
	expect(emu().leads.get(phone)).toMatchObject({ writes: 2, name: 'Ada' });
	expect(emu().stats()).toMatchObject({ requests: 2, byStatus: { '201': 2 }, leads: 1 });
});
