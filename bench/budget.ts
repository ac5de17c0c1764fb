/**
 * Section 0: the rate budget alone, in simulated time (devkit/budgetSim.ts): time to import N
 * leads ÷ the fastest time the server allows, on each server algorithm with its real 60 s
 * window, with another client on the key, and with 2 and 3 n8n processes sharing it.
 */
import type { Section } from './lib/report';
import { fixed } from './lib/stats';
import {
	simulate,
	type SimProcess,
	type SimProcessResult,
	type SimServer,
} from '../devkit/budgetSim';

export interface BudgetRow {
	label: string;
	server: string;
	leads: number;
	fastestS: number;
	timeS: number;
	rateLimited: number;
	requests: number;
	/** After the first 429: accepted rate ÷ the server's rate (token bucket without burst). */
	steadyAfter429?: number;
	note?: string;
	target?: { met: boolean; text: string };
}

const W = 60_000;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

function serverName(server: SimServer): string {
	const limit = `${server.limit} per ${server.windowMs / 1000} s`;
	const name =
		server.algorithm === 'token-bucket'
			? `token bucket ${limit}, burst ${server.burst}`
			: `${server.algorithm} ${limit}`;
	return server.headers ? `${name}, headers ${server.headers}` : name;
}

function windowsFastestS(leads: number, limit: number): number {
	return ((Math.ceil(leads / limit) - 1) * W) / 1000;
}

/** Over several seeds (each a different jitter): the 429s and requests of all, the mean time. */
function rowOverSeeds(
	label: string,
	server: SimServer,
	processes: SimProcess[],
	fastestS: number,
	seeds: number,
): BudgetRow {
	const runs = Array.from({ length: seeds }, (_, i) =>
		row(label, server, processes, fastestS, undefined, i + 1),
	).map((run) => run.row);
	return {
		...runs[0],
		label: `${label} (${seeds} seeds)`,
		timeS: sum(runs.map((r) => r.timeS)) / seeds,
		rateLimited: sum(runs.map((r) => r.rateLimited)),
		requests: sum(runs.map((r) => r.requests)),
	};
}

function row(
	label: string,
	server: SimServer,
	processes: SimProcess[],
	fastestS: number,
	measured: (results: SimProcessResult[]) => SimProcessResult[] = (results) => results,
	seed = 1,
): { row: BudgetRow; results: SimProcessResult[] } {
	const results = simulate(server, processes, seed);
	const ours = measured(results.filter((_, i) => processes[i].otherClientShare === undefined));
	const start = Math.min(...ours.map((r) => r.firstSentAt));
	const end = Math.max(...ours.map((r) => r.doneAt));
	const rateLimited = sum(ours.map((r) => r.rateLimited.length));
	return {
		results,
		row: {
			label,
			server: serverName(server),
			leads: sum(ours.map((r) => r.accepted.length)),
			fastestS,
			timeS: (end - start) / 1000,
			rateLimited,
			requests: rateLimited + sum(ours.map((r) => r.accepted.length)),
		},
	};
}

export function runBudgetSimulation(): BudgetRow[] {
	const rows: BudgetRow[] = [];
	const N = 75;
	for (const algorithm of ['sliding-log', 'fixed-window'] as const) {
		const { row: r } = row(
			'Lead & Call Access',
			{ algorithm, limit: 30, windowMs: W },
			[{ leads: N }],
			windowsFastestS(N, 30),
		);
		r.target = {
			met: r.timeS / r.fastestS <= 1.05 && r.rateLimited === 0,
			text: '≤ 1.05, 0 × 429',
		};
		rows.push(r);
	}
	{
		const server: SimServer = { algorithm: 'token-bucket', limit: 30, windowMs: W, burst: 1 };
		const { row: r, results } = row(
			'Lead & Call Access',
			server,
			[{ leads: N }],
			((N - 1) * W) / 30 / 1000,
		);
		const first429 = results[0].rateLimited[0] ?? -Infinity;
		const after = results[0].accepted.filter((at) => at > first429);
		r.steadyAfter429 = ((after.length - 1) / (after[after.length - 1] - after[0])) * (W / 30);
		r.target = {
			met: r.rateLimited <= 1 && r.steadyAfter429 >= 0.95,
			text: '≤ 1 × 429, then ≥ 0.95 of the rate',
		};
		rows.push(r);
	}
	{
		const server: SimServer = { algorithm: 'token-bucket', limit: 30, windowMs: W, burst: 30 };
		const { row: r } = row(
			'Lead & Call Access',
			server,
			[{ leads: N }],
			((N - 30) * W) / 30 / 1000,
		);
		r.note =
			'a bucket refills steadily; the budget, safe on window servers, waits for whole windows';
		rows.push(r);
	}
	{
		const server: SimServer = { algorithm: 'sliding-log', limit: 30, windowMs: W };
		const { row: r, results } = row(
			'Lead & Call Access, another client spends half the key',
			server,
			[{ leads: N }, { leads: 200, otherClientShare: 0.5 }],
			windowsFastestS(N, 30),
		);
		const other = results[1];
		r.note = `the node takes the window first; the other client (even spacing, no retries): ${other.accepted.length} accepted, ${other.rateLimited.length} × 429`;
		rows.push(r);
	}
	rows.push(...headerRows());
	// Queue mode, 60 per minute (the API's limit): every process busy, then one busy process
	// after all were (its share must grow back).
	for (const workers of [2, 3]) {
		const server: SimServer = { algorithm: 'sliding-log', limit: 60, windowMs: W };
		const each = 120;
		const all = row(
			`simulated queue mode: ${workers} processes, all busy`,
			server,
			Array.from({ length: workers }, () => ({ leads: each })),
			windowsFastestS(each * workers, 60),
		).row;
		rows.push(all);
		const lone = 170;
		const mixed = row(
			`simulated queue mode: ${workers} processes, one busy after all were`,
			server,
			[{ leads: lone + 60 }, ...Array.from({ length: workers - 1 }, () => ({ leads: 60 }))],
			windowsFastestS(lone + 60 * workers, 60),
		).row;
		rows.push(mixed);
		for (const r of [all, mixed]) {
			r.target = {
				met: r.fastestS / r.timeS >= 0.9 && r.rateLimited <= 0.05 * r.requests,
				text: '≥ 0.9 of fastest, 429s ≤ 5%',
			};
		}
	}
	return rows;
}

/**
 * A server stating the key's budget in its answers (the current IETF draft's headers; every
 * family reads the same, test/unit/rateLimitHeaders.test.ts): a single process, then processes
 * sharing the key, at 60 per minute and at 10 per 10 s (a coarse server).
 */
function headerRows(): BudgetRow[] {
	const rows: BudgetRow[] = [];
	const N = 75;
	const headers = 'ietf' as const;
	{
		const server: SimServer = {
			algorithm: 'token-bucket',
			limit: 30,
			windowMs: W,
			burst: 30,
			headers,
		};
		const { row: r } = row(
			'Lead & Call Access',
			server,
			[{ leads: N }],
			((N - 30) * W) / 30 / 1000,
		);
		r.target = { met: r.fastestS / r.timeS >= 0.95, text: '≥ 0.95 of fastest' };
		rows.push(r);
	}
	{
		const server: SimServer = { algorithm: 'sliding-log', limit: 30, windowMs: W, headers };
		const { row: r } = row(
			'Lead & Call Access, credential says 60 per minute',
			server,
			[{ leads: N, requestsPerMinute: 60 }],
			windowsFastestS(N, 30),
		);
		r.target = {
			met: r.rateLimited <= 1 && r.fastestS / r.timeS >= 0.95,
			text: '≤ 1 × 429, then ≥ 0.95 of the stated rate',
		};
		rows.push(r);
	}
	// Queue mode, 5 seeds per row. At an exact multiple of the limit the last window has no place
	// to spare, so one place left unused anywhere costs a whole window; "10 short" leaves a sixth
	// of a window's places to spare. "Staggered": one process starts 90 ms before the others and
	// spends the first window alone, as the first worker to pick up an execution does in real
	// queue mode (bench/queue.ts). "5/3 of a window": a token bucket's burst spent at once, then
	// two thirds of a window's refills to share.
	const SEEDS = 5;
	const servers = (['sliding-log', 'token-bucket'] as const).flatMap((algorithm) =>
		[
			[60, W],
			[10, 10_000],
		].map(([limit, windowMs]): SimServer => ({
			algorithm,
			limit,
			windowMs,
			...(algorithm === 'token-bucket' ? { burst: limit } : {}),
		})),
	);
	for (const base of servers) {
		const { limit, windowMs } = base;
		const fastest = (leads: number) =>
			base.algorithm === 'token-bucket'
				? ((leads - limit) * windowMs) / limit / 1000
				: (Math.floor((leads - 1) / limit) * windowMs) / 1000;
		const per = `${limit} per ${windowMs / 1000} s`;
		const spare = limit / 6;
		const shapes: Array<[string, SimProcess[]]> = [
			['3 processes, all busy', [0, 1, 2].map(() => ({ leads: 2 * limit }))],
			[
				'3 processes, all busy, leads 10 short',
				[0, 1, 2].map((i) => ({
					leads: 2 * limit - (i === 0 ? spare / 3 + (spare % 3) : spare / 3),
				})),
			],
			[
				'3 processes, all busy, staggered',
				[0, 1, 2].map((i) => ({ leads: 2 * limit, startAt: i === 0 ? 0 : 90 + i })),
			],
			[
				'3 processes, all busy, starting 0.3 and 0.7 s apart',
				[0, 300, 700].map((startAt) => ({ leads: 2 * limit, startAt })),
			],
			[
				'3 processes, all busy, 5/3 of a window',
				[0, 1, 2].map((i) => ({ leads: Math.round((5 * limit) / 9) + (i === 0 ? 1 : 0) })),
			],
			['3 processes, one busy', [{ leads: 6 * limit }]],
			[
				'3 processes, one busy after all were',
				[{ leads: 4 * limit }, { leads: limit }, { leads: limit }],
			],
		];
		for (const stated of [undefined, headers]) {
			if (base.algorithm === 'token-bucket' && !stated) continue;
			const server: SimServer = { ...base, headers: stated };
			for (const [shape, processes] of shapes) {
				const leads = sum(processes.map((p) => p.leads));
				const r = rowOverSeeds(
					`simulated queue mode (${per}): ${shape}`,
					server,
					processes,
					fastest(leads),
					SEEDS,
				);
				if (stated) setHeadersTarget(r, processes.length === 1);
				rows.push(r);
			}
		}
	}
	// Over loopback, as in the real queue-mode bench (2-6 ms each way), a process takes a place
	// every few ms: the first to start could take most of the first window before the others ask.
	for (const algorithm of ['sliding-log', 'fixed-window', 'token-bucket'] as const) {
		const server: SimServer = {
			algorithm,
			limit: 10,
			windowMs: 10_000,
			headers,
			oneWayMs: [2, 6],
			...(algorithm === 'token-bucket' ? { burst: 10 } : {}),
		};
		const processes = [0, 74, 93].map((startAt) => ({ leads: 20, startAt }));
		const r = rowOverSeeds(
			'simulated queue mode (10 per 10 s, loopback): 3 processes, all busy, starting 0, 74 and 93 ms',
			server,
			processes,
			50,
			SEEDS,
		);
		setHeadersTarget(r, false);
		rows.push(r);
	}
	return rows;
}

/** The targets with headers: ≥ 0.9 of fastest, 429s ≤ 2% of requests (none alone). */
function setHeadersTarget(r: BudgetRow, lone: boolean): void {
	const most429 = lone ? 0 : 0.02 * r.requests;
	r.target = {
		met: r.fastestS / r.timeS >= 0.9 && r.rateLimited <= most429,
		text: `≥ 0.9 of fastest, 429s ${lone ? '= 0' : '≤ 2%'}`,
	};
}

export function budgetSection(rows: BudgetRow[]): Section {
	return {
		title: '0. The rate budget alone, simulated time, real 60 s windows',
		columns: [
			'client',
			'server',
			'leads',
			'fastest s',
			'time s',
			'time ÷ fastest',
			'429s / requests',
			'target',
		],
		rows: rows.map((r) => [
			r.label,
			r.server,
			String(r.leads),
			fixed(r.fastestS, 0),
			fixed(r.timeS, 1),
			fixed(r.timeS / r.fastestS, 3) +
				(r.steadyAfter429 === undefined
					? ''
					: ` (after the 429: ${fixed(r.steadyAfter429, 3)} of the rate)`) +
				(r.note ? ` (${r.note})` : ''),
			`${r.rateLimited} / ${r.requests}`,
			r.target ? `${r.target.text}: ${r.target.met ? 'met' : 'NOT met'}` : '-',
		]),
		notes: [
			"The budget (nodes/shared/transport/pacer.ts) against the emulator's own limiters (devkit/emulator/rate-limit.ts) on a simulated clock, so whole minutes of traffic take milliseconds and need no scaling. Each simulated n8n process sends its leads 8 at a time through its own budget; requests take 5-25 ms each way (seeded, the same every run; the rows marked \"loopback\" 2-6 ms, as in the real queue-mode bench); a 429 pauses the key for its Retry-After, as the transport does. n8n itself is not in the loop: section 1 measures the node inside a real n8n.",
			'fastest s: from the first request to the last accepted one, the least the server allows: (⌈N ÷ limit⌉ − 1) windows on window servers (the fixed window counted like the sliding one), (N − burst) ÷ rate on a token bucket. With another client on the key: as if the key were the node’s alone.',
			`Simulated queue mode: each process only sees its own requests and 429s, as in n8n. "One busy after all were": every process starts with 60 leads, one has 170 more; fastest is for all the leads together. Fastest counts whole windows, so N is chosen 10 short of a multiple of the limit: at an exact multiple, the 2 or 3 places lost to 429s push the last leads a whole window later (3 processes: 1.22). The real queue-mode rows (n8n main + workers, Postgres, Redis) are in the Queue mode section (npm run bench:queue).`,
			"Rate-limit headers (issue 20): the rows with \"headers ietf\" state the key's limit, remaining and reset on every answer (the current IETF draft's `RateLimit-Policy` and `RateLimit`; every family reads the same, test/unit/rateLimitHeaders.test.ts), Reset as the emulator sends it: when Remaining next goes up, in whole seconds. The queue rows with \"(5 seeds)\" add up five runs with different network jitter (429s and requests summed, time averaged); the rows without headers next to them are the same shapes with the adaptive budget. A lone process spends exactly what the server says (on a fresh key it spreads the first window's places over its first half second and takes the last 3 only after it, so that a process starting a moment later finds its fair part); processes sharing a key send one request at a time while more is left than the others have on the way and the window's last 3 places, which go to the process whose answer stated exactly 3 left, or to one whose remaining requests fit in them. On a token bucket (a stated reset never further than one refill) the places refill oldest first, so each process takes its own refills in turn. A process whose answers show nobody else spending for two windows counts itself alone again. The 10-per-10-s rows are where one place is a tenth of the window: processes that start 0.3 s or more after the first draw a 429 each before they know the key is spent and, holding no place, again at later resets; a process that ran out of work can leave its places to nobody until others' places come round (CONTRIBUTING.md).",
		],
	};
}
