/** The emulator itself: the rate-limit algorithms (on a simulated clock) and GET /v1/calls. */
import type { CallRecord, RateLimitConfig } from '../../devkit/emulator';
import { DEMO_KEYS, PAGINATION_STYLES } from '../../devkit/emulator';
import { RateLimiter } from '../../devkit/emulator/rate-limit';
import { get, read, useEmulators } from './kit';

const { emu, start } = useEmulators();

describe('rate limiting', () => {
	/**
	 * Replays requests at simulated times (ms; `b` before a time: another key), each written as
	 * it was answered: accepted, or `!` and its Retry-After.
	 */
	function replay(config: RateLimitConfig, schedule: string): string {
		let now = 0;
		const limiter = new RateLimiter(config, () => now);
		const answer = (request: string): string => {
			const [, key, time] = /^(b?)(\d+)/.exec(request)!;
			now = Number(time);
			const decision = limiter.take(key);
			return decision.ok ? `${key}${time}` : `${key}${time}!${decision.retryAfterSeconds}`;
		};
		return schedule.split(' ').map(answer).join(' ');
	}

	it.each<[string, RateLimitConfig, string]>([
		// Never more than `limit` in any window: at 1150 the slot taken at 500 is still taken.
		['sliding log', { limit: 3, windowMs: 1000 }, '0 0 500 500!1 b500 b500 b500 1150 1150 1150!1'],
		// Windows aligned to the configuration: six within ~350 ms across a boundary.
		[
			'fixed window',
			{ limit: 3, windowMs: 1000, algorithm: 'fixed-window' },
			'750 750 750 750!1 1100 1100 1100 1100!1',
		],
		// `burst` tokens, then one back every 500 ms.
		[
			'token bucket',
			{ limit: 2, windowMs: 1000, algorithm: 'token-bucket', burst: 4 },
			'0 0 0 0 0!1 600 600!1',
		],
	])('%s', (_label, config, schedule) => {
		expect(replay(config, schedule)).toBe(schedule);
	});

	it('answers 429 with Retry-After in whole seconds, per key', async () => {
		emu().setRateLimit({ limit: 1, windowMs: 1000 });
		expect((await get(`${emu().baseUrl}/v1/calls?limit=1`)).status).toBe(200);
		const rejected = await get(`${emu().baseUrl}/v1/calls`);
		expect(rejected.headers.get('retry-after')).toBe('1');
		expect([rejected.status, await read(rejected)]).toEqual([
			429,
			{ detail: 'Rate limit exceeded' },
		]);
		expect((await get(`${emu().baseUrl}/v1/calls`, DEMO_KEYS.callsOnly)).status).toBe(200);
	});
});

describe('GET /v1/calls', () => {
	async function page(
		url: string,
	): Promise<{ ids: string[]; next: string | null; body: { data?: unknown } }> {
		const response = await get(url);
		expect(response.status).toBe(200);
		const body = await read(response);
		const link = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
		const list: CallRecord[] = Array.isArray(body)
			? body
			: (body.data ?? body.items ?? body.calls ?? body.results);
		const ids = list.map((call) => call.id);
		// Stripe's has_more: the next page starts after the last call.
		const after = body.has_more ? `?limit=10&starting_after=${ids[ids.length - 1]}` : null;
		const next = Array.isArray(body)
			? (link ?? null)
			: (body.next_cursor ?? body.nextCursor ?? body.next ?? after);
		return { ids, next, body };
	}

	it.each(PAGINATION_STYLES)(
		'%s: pages never duplicate or skip when calls are added mid-way',
		async (style) => {
			const paged = await start({ paginationStyle: style, seedCalls: 25 });
			const expected = paged.calls.map((call) => call.id);
			const ids: string[] = [];
			let url = `${paged.baseUrl}/v1/calls?limit=10&unknown=1`;
			for (let pages = 1; ; pages++) {
				const result = await page(url);
				ids.push(...result.ids);
				if (pages === 1) paged.addCalls(3); // new calls at the front must not shift later pages
				if (result.next === null) break;
				url = result.next.startsWith('http')
					? result.next
					: result.next.startsWith('?')
						? `${paged.baseUrl}/v1/calls${result.next}`
						: `${paged.baseUrl}/v1/calls?limit=10&cursor=${encodeURIComponent(result.next)}`;
				expect(url.startsWith(`${paged.baseUrl}/v1/calls?`)).toBe(true);
				expect(pages).toBeLessThan(3);
			}
			expect(ids).toEqual(expected);
			expect(paged.calls.slice(0, 3).map((call) => call.id)).toEqual([
				'call_000028',
				'call_000027',
				'call_000026',
			]);
		},
	);

	it('a call listed late goes where its created_at sorts; cursors, even one that ends on it, neither repeat nor skip', async () => {
		const paged = await start({ seedCalls: 25 });
		const listedLate = (created: number) =>
			paged.addCalls(1, { created_at: new Date(created).toISOString() }, { listedLate: true })[0];
		const time = (index: number) => Date.parse(paged.calls[index].created_at);
		const late = listedLate((time(3) + time(4)) / 2);
		expect(paged.calls.indexOf(late)).toBe(4);
		const first = await page(`${paged.baseUrl}/v1/calls?limit=5`);
		expect(first.ids[4]).toBe(late.id);
		const expected = paged.calls.slice(5).map((call) => call.id);
		listedLate((time(0) + time(1)) / 2); // among the calls already read
		const early = listedLate(Date.UTC(2020, 0, 1));
		expect(paged.calls[paged.calls.length - 1]).toBe(early);
		const rest = await page(`${paged.baseUrl}/v1/calls?limit=100&cursor=${first.next}`);
		expect(rest.ids).toEqual([...expected, early.id]);
	});

	it('seeds deterministic calls, newest first, with strictly decreasing created_at', async () => {
		const { calls } = emu();
		expect((await start()).calls).toEqual(calls);
		expect([calls.length, calls[0].id]).toEqual([120, 'call_000120']);
		const times = calls.map((call) => Date.parse(call.created_at));
		expect(times.every((time, i) => i === 0 || time < times[i - 1])).toBe(true);
		expect(new Set(calls.map((call) => call.has_recording))).toEqual(new Set([true, false]));
		const first = await page(`${emu().baseUrl}/v1/calls`);
		expect([first.ids.length, first.next === null]).toEqual([50, false]);
	});

	it('applies filters, and says there is no next page exactly on the last one', async () => {
		const { calls } = emu();
		const inbound = calls.filter((c) => c.direction === 'inbound' && c.status === 'completed');
		const filtered = await page(
			`${emu().baseUrl}/v1/calls?direction=inbound&status=completed&limit=100`,
		);
		expect([filtered.body.data, filtered.next]).toEqual([inbound, null]);
		const after = encodeURIComponent(calls[30].created_at);
		const recent = await page(`${emu().baseUrl}/v1/calls?created_after=${after}&limit=30`);
		expect([recent.ids, recent.next]).toEqual([calls.slice(0, 30).map((call) => call.id), null]);
	});

	const invalid = (loc: string, more: object) => [
		422,
		[expect.objectContaining({ loc: ['query', loc], ...more })],
	];
	const reject = { pageSizeOverflow: 'reject', maxPageSize: 20 } as const;
	it.each([
		['limit=ten', invalid('limit', { type: 'int_parsing', input: 'ten' }), {}],
		['limit=0', invalid('limit', { type: 'greater_than_equal' }), {}],
		['direction=sideways', invalid('direction', { type: 'enum' }), {}],
		['cursor=garbage', [400, 'Invalid cursor'], {}],
		['limit=21', invalid('limit', { type: 'less_than_equal', ctx: { le: 20 } }), reject],
	])('validates %s', async (query, answer, options) => {
		const response = await get(`${(await start(options)).baseUrl}/v1/calls?${query}`);
		expect([response.status, (await read(response)).detail]).toEqual(answer);
	});

	it('clamps a larger page to maxPageSize by default', async () => {
		expect((await page(`${emu().baseUrl}/v1/calls?limit=500`)).ids).toHaveLength(100);
	});
});
