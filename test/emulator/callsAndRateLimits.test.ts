/** The emulator itself: GET /v1/calls (pagination styles, orders, page sizes) and the rate-limit algorithms, with ~1 s windows. */
import type { CallRecord } from '../../devkit/emulator';
import { DEMO_KEYS, PAGINATION_STYLES } from '../../devkit/emulator';
import { read, get, until, useEmulators } from './kit';

const { emu, start } = useEmulators();

describe('rate limiting', () => {
	const burst = (n: number, key: string = DEMO_KEYS.full): Promise<Response[]> =>
		Promise.all(Array.from({ length: n }, () => get(`${emu().baseUrl}/v1/calls?limit=1`, key)));
	const statuses = (responses: Response[]): number[] => responses.map((r) => r.status).sort();

	it('sliding log: never more than `limit` in any window, Retry-After in whole seconds', async () => {
		emu().setRateLimit({ limit: 3, windowMs: 1000 });
		const t0 = Date.now();
		expect(statuses(await burst(2))).toEqual([200, 200]);
		await until(t0, 500);
		expect(statuses(await burst(1))).toEqual([200]);
		const rejected = await get(`${emu().baseUrl}/v1/calls`);
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
		emu().setRateLimit({ limit: 3, windowMs: 1000, algorithm: 'fixed-window' });
		await until(t0, 750);
		expect(statuses(await burst(4))).toEqual([200, 200, 200, 429]);
		await until(t0, 1100);
		// A sliding log would refuse these: six requests within ~350 ms.
		expect(statuses(await burst(4))).toEqual([200, 200, 200, 429]);
	});

	it('token bucket: burst capacity, then continuous refill', async () => {
		emu().setRateLimit({ limit: 2, windowMs: 1000, algorithm: 'token-bucket', burst: 4 });
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
		expect(other.calls).toEqual(emu().calls);
		expect(emu().calls).toHaveLength(120);
		expect(emu().calls[0].id).toBe('call_000120');
		for (let i = 1; i < emu().calls.length; i++) {
			expect(Date.parse(emu().calls[i - 1].created_at)).toBeGreaterThan(
				Date.parse(emu().calls[i].created_at),
			);
		}
		expect(emu().calls.some((call) => call.has_recording)).toBe(true);
		expect(emu().calls.some((call) => !call.has_recording)).toBe(true);
		const { ids, next } = await page(`${emu().baseUrl}/v1/calls`);
		expect(ids).toHaveLength(50);
		expect(next).not.toBeNull();
	});

	it('applies filters, and says there is no next page exactly on the last one', async () => {
		const inbound = emu().calls.filter(
			(call) => call.direction === 'inbound' && call.status === 'completed',
		);
		const after = emu().calls[30].created_at;
		const { body } = await page(
			`${emu().baseUrl}/v1/calls?direction=inbound&status=completed&limit=100`,
		);
		expect((body as { data: CallRecord[] }).data).toEqual(inbound);
		expect((body as { next_cursor: null }).next_cursor).toBeNull();
		const recent = await page(
			`${emu().baseUrl}/v1/calls?created_after=${encodeURIComponent(after)}&limit=30`,
		);
		expect(recent.ids).toEqual(
			emu()
				.calls.slice(0, 30)
				.map((call) => call.id),
		);
		expect(recent.next).toBeNull();
	});

	it('validates limit, cursor and enum filters; clamps or rejects large pages', async () => {
		const bad = await get(`${emu().baseUrl}/v1/calls?limit=ten`);
		expect(bad.status).toBe(422);
		expect((await read(bad)).detail[0]).toMatchObject({
			type: 'int_parsing',
			loc: ['query', 'limit'],
			input: 'ten',
		});
		expect((await get(`${emu().baseUrl}/v1/calls?limit=0`)).status).toBe(422);
		const direction = await get(`${emu().baseUrl}/v1/calls?direction=sideways`);
		expect((await read(direction)).detail[0]).toMatchObject({
			type: 'enum',
			loc: ['query', 'direction'],
		});
		const cursor = await get(`${emu().baseUrl}/v1/calls?cursor=garbage`);
		expect(cursor.status).toBe(400);
		expect(await read(cursor)).toEqual({ detail: 'Invalid cursor' });
		expect((await page(`${emu().baseUrl}/v1/calls?limit=500`)).ids).toHaveLength(100);

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
