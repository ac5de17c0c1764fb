/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run bench:resync`: a nightly CRM sync of 5,000 leads where 1% changed since the last
 * night, with Import Lead's Skip Unchanged Leads off and on, in a real n8n (SQLite) against the
 * API emulator at the real limit's shape: 60 requests per window, the window shrunk from a
 * minute to a second. Rows: requests sent, 429s, wall time, and that time at the real
 * minute (requests ÷ 60). Rewrites the "Re-sync" section of BENCHMARKS.md. About 4 minutes.
 *
 *   BENCH_RESYNC_LEADS=5000   list size (default 5000)
 *   BENCH_PACKAGE_DIR=<dir>   install another build of the package (before/after comparisons)
 */
import { N8N_VERSION } from '../devkit/n8n';
import { cleanupAll, logger, runBench } from './lib/cleanup';
import { deploy, startBenchServer, trigger, withEmulator, type BenchServer } from './lib/n8n';
import { publishSection, renderSection, type Section } from './lib/report';
import { fixed } from './lib/stats';
import { leads } from '../devkit/workflows';
import { ourImportChain } from './lib/workflows';

const LEADS = Number(process.env.BENCH_RESYNC_LEADS ?? 5000);
const CHANGED_SHARE = 0.01;
/** The API's 60 requests a minute, with the minute shrunk to one second. */
const LIMIT = { limit: 60, windowMs: 1_000, algorithm: 'sliding-log' as const };

const log = logger('bench:resync');

interface Row {
	label: string;
	requests: number;
	rateLimited: number;
	wallS: number;
	skipped: number;
}

/** Tonight's list: every 100th lead renamed since last night (1%, spread over the list). */
function tonight(list: ReturnType<typeof leads>) {
	const every = Math.round(1 / CHANGED_SHARE);
	return list.map((lead, index) =>
		index % every === every - 1 ? { ...lead, name: `${lead.name} (changed)` } : lead,
	);
}

/** Runs the same workflow on each list in turn (same node, so the same memory); a row per run. */
async function measure(
	bench: BenchServer,
	skipUnchanged: boolean,
	runs: Array<{ label: string; list: ReturnType<typeof leads> }>,
): Promise<Row[]> {
	return await withEmulator({ rateLimit: LIMIT, recordRequests: false }, async (api) => {
		const budget = { requestsPerMinute: (LIMIT.limit * 60_000) / LIMIT.windowMs, ...LIMIT };
		const id = `resync-${skipUnchanged ? 'on' : 'off'}`;
		const built = ourImportChain(id, api, budget, { saveSuccess: false, skipUnchanged });
		const deployed = await deploy(bench, built);
		const rows: Row[] = [];
		for (const { label, list } of runs) {
			const before = api.emulator.stats();
			const answer = await trigger(bench, deployed, { items: list });
			if (answer.status !== 200) throw new Error(`${label}: HTTP ${answer.status}`);
			const after = api.emulator.stats();
			const count = (status: string) =>
				(after.byStatus[status] ?? 0) - (before.byStatus[status] ?? 0);
			const [requests, rateLimited] = [after.requests - before.requests, count('429')];
			const row = { label, requests, rateLimited, wallS: answer.wallMs / 1000 };
			rows.push({ ...row, skipped: list.length - count('201') });
			log(`${label}: ${requests} requests, ${rateLimited} × 429, ${fixed(row.wallS, 1)} s`);
		}
		return rows;
	});
}

function section(rows: Row[]): Section {
	return {
		title: `Re-sync of ${LEADS.toLocaleString('en-US')} leads, ${CHANGED_SHARE * 100}% changed (Skip Unchanged Leads)`,
		columns: [
			'Skip Unchanged Leads',
			'requests',
			'429s',
			'skipped',
			`time (60 per ${LIMIT.windowMs / 1000} s)`,
			"the key's limit spent at the real 60 per minute",
		],
		rows: rows.map((row) => [
			row.label,
			String(row.requests),
			String(row.rateLimited),
			String(row.skipped),
			`${fixed(row.wallS, 1)} s`,
			`${fixed(row.requests / 60, 1)} min`,
		]),
		notes: [
			`n8n ${N8N_VERSION}, one process, SQLite; the emulator allows ${LIMIT.limit} requests per ${LIMIT.windowMs} ms (sliding log), the credential's budget is the same.`,
			'"re-sync": the list with every 100th lead renamed since the last sync. With the option on, the first sync records every lead in n8n\'s database; the re-sync runs the same workflow after it.',
			"\"the key's limit spent\" is requests ÷ 60: the minutes of the real API's limit the sync uses up. Off, the sync cannot end sooner; on, the re-sync's requests fit in one minute's budget and go out as fast as the service answers.",
			`Time with the option on, besides the requests: one database write per imported lead (the first sync: ${fixed(rows[1].wallS, 0)} s against ${fixed(rows[0].wallS, 0)} s off, about ${fixed(((rows[1].wallS - rows[0].wallS) * 1000) / LEADS, 0)} ms per lead on SQLite, hidden behind the rate limit at the real 60 per minute), and checking the whole list in 3 database calls per run (part of the re-sync's time, with n8n reading the ${LEADS.toLocaleString('en-US')} items from the webhook and splitting them).`,
		],
	};
}

async function main(): Promise<void> {
	log('starting n8n');
	const bench = await startBenchServer('resync');
	const lastNight = leads(LEADS, 0);
	const rows = [
		...(await measure(bench, false, [{ label: 'off: re-sync', list: tonight(lastNight) }])),
		...(await measure(bench, true, [
			{ label: 'on: first sync (nothing remembered yet)', list: lastNight },
			{ label: 'on: re-sync', list: tonight(lastNight) },
		])),
	];
	await cleanupAll();
	const source = { script: 'bench:resync', path: 'bench/resync.ts' };
	publishSection('Re-sync', source, renderSection(section(rows)));
}

runBench('bench:resync', main);
