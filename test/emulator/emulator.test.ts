/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Tests of the emulator itself: the node's suites trust it, so its behaviour must be pinned down.
 * Uses Node's global fetch, real sockets, and ~1 s windows for the rate-limit algorithms.
 */
import { createHash } from 'crypto';
import {
	CallRecord,
	connectEmulator,
	DEMO_KEYS,
	Emulator,
	EmulatorOptions,
	PAGINATION_STYLES,
	recordingBytes,
	startEmulator,
} from '../../devkit/emulator';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` });

async function importLead(
	emu: Emulator,
	body: unknown,
	key: string = DEMO_KEYS.full,
	contentType = 'application/json',
): Promise<Response> {
	return fetch(`${emu.baseUrl}/v1/leads`, {
		method: 'POST',
		headers: { ...bearer(key), 'Content-Type': contentType },
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
const read = (response: Response): Promise<any> => response.json();

const get = (url: string, key: string = DEMO_KEYS.full): Promise<Response> =>
	fetch(url, { headers: bearer(key) });

/** Waits until the emulator is at a point `ms` after `t0` (Date.now() based). */
const until = (t0: number, ms: number): Promise<void> => sleep(Math.max(0, t0 + ms - Date.now()));

let emu: Emulator;
const started: Emulator[] = [];

async function start(options: EmulatorOptions = {}): Promise<Emulator> {
	const instance = await startEmulator(options);
	started.push(instance);
	return instance;
}

beforeAll(async () => {
	emu = await start({ rateLimit: false });
});
beforeEach(() => {
	emu.reset();
	emu.setRateLimit(false);
});
afterAll(async () => {
	await Promise.all(started.map((instance) => instance.stop()));
});

describe('keys and auth', () => {
	it('exposes demo keys in the real key format', () => {
		for (const key of Object.values(DEMO_KEYS)) expect(key).toMatch(/^pf_live_[A-Za-z0-9_-]{43}$/);
	});

	it('answers 401 for a missing, malformed or unknown key, with a Bearer challenge', async () => {
		const missing = await fetch(`${emu.baseUrl}/v1/calls`);
		expect(missing.status).toBe(401);
		expect(missing.headers.get('www-authenticate')).toBe('Bearer');
		expect(await read(missing)).toEqual({ detail: 'Not authenticated' });

		const malformed = await fetch(`${emu.baseUrl}/v1/calls`, {
			headers: { Authorization: `Token ${DEMO_KEYS.full}` },
		});
		expect(await read(malformed)).toEqual({ detail: 'Not authenticated' });

		const unknown = await get(`${emu.baseUrl}/v1/calls`, `pf_live_${'x'.repeat(43)}`);
		expect(unknown.status).toBe(401);
		expect(await read(unknown)).toEqual({ detail: 'Invalid API key' });
	});

	it('answers 403 naming the scope the operation needs', async () => {
		const leads = await importLead(emu, { phone_e164: '+14155552671' }, DEMO_KEYS.noScopes);
		expect(leads.status).toBe(403);
		expect(await read(leads)).toEqual({ detail: 'API key lacks required scope: leads:write' });

		const calls = await get(`${emu.baseUrl}/v1/calls`, DEMO_KEYS.leadsOnly);
		expect(await read(calls)).toEqual({ detail: 'API key lacks required scope: calls:read' });

		const recording = await get(
			`${emu.baseUrl}/v1/calls/call_000001/recording`,
			DEMO_KEYS.callsOnly,
		);
		expect(recording.status).toBe(403);
		expect(await read(recording)).toEqual({
			detail: 'API key lacks required scope: recordings:read',
		});
		expect(emu.leads.size).toBe(0);
	});

	it('routes like FastAPI: 404 for unknown paths, 405 for wrong methods', async () => {
		expect((await get(`${emu.baseUrl}/v1/nope`)).status).toBe(404);
		const wrong = await get(`${emu.baseUrl}/v1/leads`);
		expect(wrong.status).toBe(405);
		expect(await read(wrong)).toEqual({ detail: 'Method Not Allowed' });
	});
});

describe('POST /v1/leads validation (422)', () => {
	it('reports malformed JSON as json_invalid with the error position', async () => {
		const response = await importLead(emu, '{"phone_e164": }');
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
		const [error] = (await read(await importLead(emu, text))).detail;
		expect(error).toMatchObject({ loc: ['body', pos], ctx: { error: message } });
	});

	it('rejects a non-object body and an empty body', async () => {
		const array = await importLead(emu, [{ phone_e164: '+14155552671' }]);
		expect((await read(array)).detail).toEqual([
			{
				type: 'model_attributes_type',
				loc: ['body'],
				msg: 'Input should be a valid dictionary or object to extract fields from',
				input: [{ phone_e164: '+14155552671' }],
			},
		]);
		const empty = await importLead(emu, '');
		expect((await read(empty)).detail).toEqual([
			{ type: 'missing', loc: ['body'], msg: 'Field required', input: null },
		]);
	});

	it('treats a non-JSON content type as a raw body, as FastAPI does', async () => {
		const response = await importLead(
			emu,
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
		const response = await importLead(emu, body);
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
		const nullPhone = await importLead(emu, { phone_e164: null });
		expect((await read(nullPhone)).detail[0]).toMatchObject({
			type: 'string_type',
			loc: ['body', 'phone_e164'],
		});
	});

	it('checks E.164 when strictPhone is on, and not when it is off', async () => {
		const response = await importLead(emu, { phone_e164: '(415) 555-2671' });
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
		const first = await importLead(emu, {
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

		const second = await importLead(emu, {
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
		expect(emu.leads.size).toBe(1);
		expect(emu.leads.get('+14155552671')).toMatchObject({ writes: 2, name: 'Ada' });
		expect(emu.stats()).toMatchObject({ requests: 2, byStatus: { '201': 2 }, leads: 1 });
	});
});

describe('rate limiting', () => {
	const burst = (n: number, key: string = DEMO_KEYS.full): Promise<Response[]> =>
		Promise.all(Array.from({ length: n }, () => get(`${emu.baseUrl}/v1/calls?limit=1`, key)));
	const statuses = (responses: Response[]): number[] => responses.map((r) => r.status).sort();

	it('sliding log: never more than `limit` in any window, Retry-After in whole seconds', async () => {
		emu.setRateLimit({ limit: 3, windowMs: 1000 });
		const t0 = Date.now();
		expect(statuses(await burst(2))).toEqual([200, 200]);
		await until(t0, 500);
		expect(statuses(await burst(1))).toEqual([200]);
		const rejected = await get(`${emu.baseUrl}/v1/calls`);
		expect(rejected.status).toBe(429);
		expect(rejected.headers.get('retry-after')).toBe('1');
		expect(await read(rejected)).toEqual({ detail: 'Rate limit exceeded' });
		// Per key: another key still has its whole budget; auth failures never reach the limiter.
		expect(statuses(await burst(3, DEMO_KEYS.callsOnly))).toEqual([200, 200, 200]);
		// At t0+1150 the first two slots are free, the one taken at t0+500 is not.
		await until(t0, 1150);
		expect(statuses(await burst(3))).toEqual([200, 200, 429]);
	});

	it('fixed window: windows aligned to the configuration time, bursts allowed across a boundary', async () => {
		const t0 = Date.now();
		emu.setRateLimit({ limit: 3, windowMs: 1000, algorithm: 'fixed-window' });
		await until(t0, 750);
		expect(statuses(await burst(4))).toEqual([200, 200, 200, 429]);
		await until(t0, 1100);
		// A sliding log would refuse these: six requests within ~350 ms.
		expect(statuses(await burst(4))).toEqual([200, 200, 200, 429]);
	});

	it('token bucket: burst capacity, then continuous refill', async () => {
		emu.setRateLimit({ limit: 2, windowMs: 1000, algorithm: 'token-bucket', burst: 4 });
		const t0 = Date.now();
		const first = await burst(5);
		expect(statuses(first)).toEqual([200, 200, 200, 200, 429]);
		expect(first.find((r) => r.status === 429)?.headers.get('retry-after')).toBe('1');
		await until(t0, 600); // 2 tokens per second: one token back after 500 ms
		expect(statuses(await burst(2))).toEqual([200, 429]);
	});
});

describe('GET /v1/calls', () => {
	async function page(url: string): Promise<{ ids: string[]; next: string | null; body: unknown }> {
		const response = await get(url);
		expect(response.status).toBe(200);
		const body = await read(response);
		const link = response.headers.get('link');
		const list: CallRecord[] = Array.isArray(body)
			? body
			: (body.data ?? body.items ?? body.calls ?? body.results);
		const next = Array.isArray(body)
			? (link && /<([^>]+)>;\s*rel="next"/.exec(link)?.[1]) || null
			: (body.next_cursor ?? body.nextCursor ?? body.next ?? null);
		return { ids: list.map((call) => call.id), next, body };
	}

	const styles = PAGINATION_STYLES;

	it.each(styles)(
		'%s: pages never duplicate or skip when calls are added mid-way',
		async (style) => {
			const paged = await start({ rateLimit: false, paginationStyle: style, seedCalls: 25 });
			const expected = paged.calls.map((call) => call.id);
			const ids: string[] = [];
			let next: string | null = null;
			let pages = 0;
			do {
				const url: string =
					next === null
						? `${paged.baseUrl}/v1/calls?limit=10&unknown=1`
						: next.startsWith('http')
							? next
							: `${paged.baseUrl}/v1/calls?limit=10&cursor=${encodeURIComponent(next)}`;
				if (next !== null) expect(url.startsWith(`${paged.baseUrl}/v1/calls?`)).toBe(true);
				const result = await page(url);
				ids.push(...result.ids);
				next = result.next;
				if (++pages === 1) paged.addCalls(3); // new calls at the front must not shift later pages
			} while (next !== null);
			expect(pages).toBe(3);
			expect(ids).toEqual(expected);
			expect(paged.calls.slice(0, 3).map((call) => call.id)).toEqual([
				'call_000028',
				'call_000027',
				'call_000026',
			]);
		},
	);

	it('seeds deterministic calls, newest first, with strictly decreasing created_at', async () => {
		const other = await start({ rateLimit: false });
		expect(other.calls).toEqual(emu.calls);
		expect(emu.calls).toHaveLength(120);
		expect(emu.calls[0].id).toBe('call_000120');
		for (let i = 1; i < emu.calls.length; i++) {
			expect(Date.parse(emu.calls[i - 1].created_at)).toBeGreaterThan(
				Date.parse(emu.calls[i].created_at),
			);
		}
		expect(emu.calls.some((call) => call.has_recording)).toBe(true);
		expect(emu.calls.some((call) => !call.has_recording)).toBe(true);
		const { ids, next } = await page(`${emu.baseUrl}/v1/calls`);
		expect(ids).toHaveLength(50);
		expect(next).not.toBeNull();
	});

	it('applies filters, and says there is no next page exactly on the last one', async () => {
		const inbound = emu.calls.filter(
			(call) => call.direction === 'inbound' && call.status === 'completed',
		);
		const after = emu.calls[30].created_at;
		const { body } = await page(
			`${emu.baseUrl}/v1/calls?direction=inbound&status=completed&limit=100`,
		);
		expect((body as { data: CallRecord[] }).data).toEqual(inbound);
		expect((body as { next_cursor: null }).next_cursor).toBeNull();
		const recent = await page(
			`${emu.baseUrl}/v1/calls?created_after=${encodeURIComponent(after)}&limit=30`,
		);
		expect(recent.ids).toEqual(emu.calls.slice(0, 30).map((call) => call.id));
		expect(recent.next).toBeNull();
	});

	it('validates limit, cursor and enum filters; clamps or rejects large pages', async () => {
		const bad = await get(`${emu.baseUrl}/v1/calls?limit=ten`);
		expect(bad.status).toBe(422);
		expect((await read(bad)).detail[0]).toMatchObject({
			type: 'int_parsing',
			loc: ['query', 'limit'],
			input: 'ten',
		});
		expect((await get(`${emu.baseUrl}/v1/calls?limit=0`)).status).toBe(422);
		const direction = await get(`${emu.baseUrl}/v1/calls?direction=sideways`);
		expect((await read(direction)).detail[0]).toMatchObject({
			type: 'enum',
			loc: ['query', 'direction'],
		});
		const cursor = await get(`${emu.baseUrl}/v1/calls?cursor=garbage`);
		expect(cursor.status).toBe(400);
		expect(await read(cursor)).toEqual({ detail: 'Invalid cursor' });
		expect((await page(`${emu.baseUrl}/v1/calls?limit=500`)).ids).toHaveLength(100);

		const strict = await start({ rateLimit: false, pageSizeOverflow: 'reject', maxPageSize: 20 });
		const rejected = await get(`${strict.baseUrl}/v1/calls?limit=21`);
		expect(rejected.status).toBe(422);
		expect((await read(rejected)).detail[0]).toMatchObject({
			type: 'less_than_equal',
			loc: ['query', 'limit'],
			ctx: { le: 20 },
		});
	});
});

describe('recordings and the file host', () => {
	let files: Emulator;
	beforeAll(async () => {
		files = await start({ rateLimit: false, recordingBytes: 300_000 });
	});
	beforeEach(() => files.reset());

	const recorded = (): CallRecord => files.calls.find((call) => call.has_recording) as CallRecord;
	async function signedUrl(id: string = recorded().id): Promise<string> {
		const response = await get(`${files.baseUrl}/v1/calls/${encodeURIComponent(id)}/recording`);
		expect(response.status).toBe(200);
		return (await read(response)).url;
	}

	it('answers 404 for unknown calls and calls without a recording', async () => {
		const unknown = await get(`${files.baseUrl}/v1/calls/call_999999/recording`);
		expect(unknown.status).toBe(404);
		expect(await read(unknown)).toEqual({ detail: 'Call not found' });
		const silent = files.calls.find((call) => !call.has_recording) as CallRecord;
		const none = await get(`${files.baseUrl}/v1/calls/${silent.id}/recording`);
		expect(await read(none)).toEqual({ detail: 'Recording not found' });
	});

	it.each([
		['404', 404, { detail: 'Recording not found' }],
		['202', 202, { status: 'processing' }],
		['processing', 200, { status: 'processing', url: null }],
	] as const)(
		"answers %s while a new call's recording is processed, then its URL (switch over HTTP)",
		async (pendingAnswer, status, body) => {
			const control = connectEmulator(files.baseUrl);
			await control.setRecordingProcessing({ delayMs: 300, pendingAnswer });
			const [call] = await control.addCalls(1, { status: 'completed', has_recording: true });
			const url = `${files.baseUrl}/v1/calls/${call.id}/recording`;
			const pending = await get(url);
			expect(pending.status).toBe(status);
			expect(await read(pending)).toMatchObject(body);
			// Seeded calls are ready at once.
			const seeded = files.calls.slice(1).find((other) => other.has_recording) as CallRecord;
			expect((await get(`${files.baseUrl}/v1/calls/${seeded.id}/recording`)).status).toBe(200);
			await sleep(350);
			const ready = await get(url);
			expect(ready.status).toBe(200);
			expect(await read(ready)).toMatchObject({ status: 'completed', url: expect.any(String) });
			expect((await control.state()).recordingProcessing).toEqual({ delayMs: 300, pendingAnswer });
		},
	);

	it('signs a URL on the file origin and streams deterministic bytes from it', async () => {
		const call = recorded();
		const response = await get(`${files.baseUrl}/v1/calls/${call.id}/recording`);
		const body = await read(response);
		expect(body).toMatchObject({
			call_id: call.id,
			content_type: 'audio/mpeg',
			size_bytes: 300_000,
			duration_seconds: call.duration_seconds,
		});
		expect(body.url).toMatch(
			new RegExp(
				`^${files.fileBaseUrl}/recordings/${call.id}\\.mp3\\?expires=\\d+&signature=[0-9a-f]{64}$`,
			),
		);
		expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.now() + 14 * 60_000);

		const file = await fetch(body.url);
		expect(file.status).toBe(200);
		expect(file.headers.get('content-type')).toBe('audio/mpeg');
		expect(file.headers.get('content-length')).toBe('300000');
		expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${call.id}.mp3"`);
		const bytes = Buffer.from(await file.arrayBuffer());
		expect(bytes.subarray(0, 3).toString('latin1')).toBe('ID3');
		expect(bytes.equals(recordingBytes(call.id, 300_000))).toBe(true);
		expect(files.fileRequests[0]).toMatchObject({ origin: 'files', status: 200 });
	});

	it('URL-decodes the call id from the path', async () => {
		const [odd] = files.addCalls(1, { id: 'call a/b+c', has_recording: true });
		const url = await signedUrl(odd.id);
		const file = await fetch(url);
		expect(file.status).toBe(200);
		expect(file.headers.get('content-disposition')).toBe('attachment; filename="call_a_b_c.mp3"');
		await file.arrayBuffer();
	});

	it('rejects an Authorization header, a bad signature and an expired URL like S3', async () => {
		const url = await signedUrl();
		const withAuth = await fetch(url, { headers: bearer(DEMO_KEYS.full) });
		expect(withAuth.status).toBe(400);
		expect(await withAuth.text()).toContain(
			'<Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message>',
		);

		const tampered = await fetch(
			url.replace(/signature=./, (s) =>
				s.endsWith('0') ? `${s.slice(0, -1)}1` : `${s.slice(0, -1)}0`,
			),
		);
		expect(tampered.status).toBe(403);

		files.inject({ kind: 'expire-signed-urls' });
		const expired = await fetch(url);
		expect(expired.status).toBe(403);
		expect(expired.headers.get('content-type')).toBe('application/xml');
		expect(await expired.text()).toContain(
			'<Code>AccessDenied</Code><Message>Request has expired</Message>',
		);
		files.clearFaults();
		expect((await fetch(url)).status).toBe(200);
	});

	it('lets signed URLs really expire after signedUrlTtlMs', async () => {
		const shortLived = await start({ rateLimit: false, signedUrlTtlMs: 1 });
		const call = shortLived.calls.find((c) => c.has_recording) as CallRecord;
		const { url } = await read(await get(`${shortLived.baseUrl}/v1/calls/${call.id}/recording`));
		const expires = Number(new URL(url).searchParams.get('expires'));
		await sleep(expires * 1000 - Date.now() + 20);
		expect((await fetch(url)).status).toBe(403);
	});

	it('truncates a body: full Content-Length announced, half sent, connection cut', async () => {
		const url = await signedUrl();
		files.inject({ kind: 'truncate' });
		const file = await fetch(url);
		expect(file.headers.get('content-length')).toBe('300000');
		await expect(file.arrayBuffer()).rejects.toThrow();
		expect(files.fileRequests[0]).toMatchObject({ status: 200, fault: 'truncate' });
		const whole = await fetch(url); // count defaults to 1
		expect((await whole.arrayBuffer()).byteLength).toBe(300_000);
	});

	it('streams a large recording without buffering it', async () => {
		const big = await start({ rateLimit: false, recordingBytes: 50 * 1024 * 1024 });
		const call = big.calls.find((c) => c.has_recording) as CallRecord;
		const { url } = await read(await get(`${big.baseUrl}/v1/calls/${call.id}/recording`));
		const file = await fetch(url);
		const hash = createHash('sha256');
		let size = 0;
		for await (const chunk of file.body as unknown as AsyncIterable<Uint8Array>) {
			hash.update(chunk);
			size += chunk.length;
		}
		expect(size).toBe(50 * 1024 * 1024);
	});
});

describe('fault injection', () => {
	it('answers injected statuses FIFO, with Retry-After and bodies as given', async () => {
		emu.inject({ kind: 'status', status: 503, count: 2 });
		emu.inject({ kind: 'status', status: 429, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT' });
		emu.inject({ kind: 'status', status: 502, body: '<html><body>Bad gateway</body></html>' });
		emu.inject({
			kind: 'status',
			status: 201,
			body: '{"id": "lead_',
			contentType: 'application/json',
		});
		const seen: Array<[number, string | null, string]> = [];
		for (let i = 0; i < 6; i++) {
			const response = await importLead(emu, { phone_e164: '+14155552671' });
			seen.push([response.status, response.headers.get('retry-after'), await response.text()]);
		}
		expect(seen.map(([status]) => status)).toEqual([503, 503, 429, 502, 201, 201]);
		expect(seen[0][2]).toBe('{"detail":"Service Unavailable"}');
		expect(seen[2][1]).toBe('Wed, 21 Oct 2015 07:28:00 GMT');
		expect(seen[3][2]).toContain('<html>');
		expect(seen[4][2]).toBe('{"id": "lead_');
		// Gateway faults never reach the service: only the last import wrote the lead.
		expect(emu.leads.get('+14155552671')?.writes).toBe(1);
		expect(emu.requests.map((r) => r.fault)).toEqual([
			'status',
			'status',
			'status',
			'status',
			'status',
			undefined,
		]);
	});

	it('matches faults by path (string or RegExp) and method', async () => {
		emu.inject({ kind: 'status', status: 504, path: /\/recording$/ });
		emu.inject({ kind: 'status', status: 503, path: '/v1/leads', method: 'post' });
		expect((await get(`${emu.baseUrl}/v1/calls?limit=1`)).status).toBe(200);
		expect((await get(`${emu.baseUrl}/v1/calls/call_000120/recording`)).status).toBe(504);
		expect((await importLead(emu, { phone_e164: '+14155552671' })).status).toBe(503);
	});

	it('resets before the body: nothing processed', async () => {
		emu.inject({ kind: 'reset', when: 'before-body' });
		await expect(importLead(emu, { phone_e164: '+14155552671' })).rejects.toThrow();
		expect(emu.leads.size).toBe(0);
		expect(emu.requests[0].status).toBe('reset');
	});

	it('resets after the body: the lead was upserted, only the answer is lost', async () => {
		emu.inject({ kind: 'reset', when: 'after-body' });
		await expect(importLead(emu, { phone_e164: '+14155552671', name: 'Ada' })).rejects.toThrow();
		expect(emu.leads.get('+14155552671')?.name).toBe('Ada');
		expect(emu.requests[0]).toMatchObject({
			status: 'reset',
			body: '{"phone_e164":"+14155552671","name":"Ada"}',
		});
		expect(emu.stats().byStatus).toEqual({ reset: 1 });
	});

	it('hangs until stop(), which returns promptly and cuts the hung request', async () => {
		const hanging = await start({ rateLimit: false });
		hanging.inject({ kind: 'hang' });
		const pending = importLead(hanging, { phone_e164: '+14155552671' });
		const outcome = pending.then(
			() => 'answered',
			() => 'failed',
		);
		while (hanging.requests[0]?.status !== 'hang') await sleep(10);
		await sleep(100);
		const before = Date.now();
		await hanging.stop();
		expect(Date.now() - before).toBeLessThan(1000);
		expect(await outcome).toBe('failed');
		expect(hanging.leads.size).toBe(0);
	});

	it('keeps only counters when recordRequests is false', async () => {
		const quiet = await start({ rateLimit: { limit: 1, windowMs: 60_000 }, recordRequests: false });
		await importLead(quiet, { phone_e164: '+14155552671' });
		await importLead(quiet, { phone_e164: '+14155552672' });
		expect(quiet.requests).toHaveLength(0);
		expect(quiet.stats()).toEqual({
			requests: 2,
			byStatus: { '201': 1, '429': 1 },
			leads: 1,
			fileRequests: 0,
			fileByStatus: {},
		});
	});
});

describe('HTTP control routes', () => {
	it('drives faults, rate limit, calls, state and reset over HTTP', async () => {
		const control = connectEmulator(emu.baseUrl);
		await control.inject([
			{ kind: 'status', status: 503, path: /^\/v1\/leads$/ },
			{ kind: 'status', status: 500, path: '/never' },
		]);
		expect((await importLead(emu, { phone_e164: '+14155552671' })).status).toBe(503);
		await control.clearFaults();
		expect((await importLead(emu, { phone_e164: '+14155552671' })).status).toBe(201);

		await control.setRateLimit({ limit: 1, windowMs: 5000, algorithm: 'fixed-window' });
		expect((await get(`${emu.baseUrl}/v1/calls?limit=1`)).status).toBe(200);
		expect((await get(`${emu.baseUrl}/v1/calls?limit=1`)).status).toBe(429);
		await control.setRateLimit(false);

		const added = await control.addCalls(2, { direction: 'inbound' });
		expect(added.map((c) => c.id)).toEqual(['call_000122', 'call_000121']);
		expect(emu.calls[0].id).toBe('call_000122');

		const state = await control.state({ since: 1 });
		expect(state.requestsTotal).toBe(4);
		expect(state.requests.map((r) => r.status)).toEqual([201, 200, 429]);
		expect(state.leads).toHaveLength(1);
		expect(state.stats).toMatchObject({ requests: 4, leads: 1 });
		expect(state.rateLimit).toBe(false);

		await control.reset();
		expect(emu.requests).toHaveLength(0);
		expect(emu.leads.size).toBe(0);
		expect(emu.calls).toHaveLength(120);
	});

	it('refuses nonsense with 400 and a readable message', async () => {
		const response = await fetch(`${emu.baseUrl}/__emulator/faults`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ kind: 'explode' }),
		});
		expect(response.status).toBe(400);
		expect(await read(response)).toEqual({ detail: 'unknown fault kind: explode' });
		const limit = await fetch(`${emu.baseUrl}/__emulator/rate-limit`, {
			method: 'POST',
			body: '{"limit":0}',
		});
		expect(limit.status).toBe(400);
	});
});
