/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The fault matrix of test/reliability, run by a real n8n 2.40.7 with the package installed from
 * its tarball: Import Lead (8 leads), List Calls (3 items of 2 pages), List Calls with Return All
 * (2 items of 3 pages) and Get Recording with Download (4 calls), against a representative set of
 * the matrix's faults. Workflows, inputs and checks are the reliability suite's own
 * (devkit/reliability: operations.ts, scenarios.ts, audit.ts): only the runner they are
 * given differs: one that deploys the workflow to n8n, calls it and reads back the execution
 * n8n stored (faults-helpers.ts). Each run must account for every input item (success + error = in,
 * paired), send nothing twice except retries, give clear error messages, and leave its sentinel
 * API key out of the stored execution and the server log. Rows go to RELIABILITY.md as
 * `real n8n` (test/reliability/report.ts).
 *
 * One n8n serves the file and the runs go to it side by side from beforeAll, each with its own
 * emulator and key; the tests then judge them. So `-t` filters what is judged, not what runs.
 */
import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import { join } from 'path';

import { openSession, type Session } from '../../devkit/demo/session';
import { placesContaining } from '../../devkit/reliability/audit';
import { sentinelKey } from '../../devkit/reliability/keys';
import { runScenario } from '../../devkit/reliability/runScenario';
import {
	OPERATIONS,
	type Operation,
	type OperationRun,
	type WorkflowRunner,
} from '../../devkit/reliability/operations';
import { ResultsCollector, type ResultRow } from '../../devkit/reliability/results';
import { Tally } from '../../devkit/reliability/tally';
import { SCENARIOS, type Scenario } from '../../devkit/reliability/scenarios';
import { RealN8nRunner, listAllCalls, pool, type RealN8nResult } from './faults-helpers';
import { readDatabaseText } from '../../devkit/n8n';

jest.setTimeout(120_000);

/**
 * A representative part of the engine matrix (which runs every scenario): each kind of fault
 * once, the 503 bursts at both ends, every Retry-After form. Scenarios that only wait longer
 * (bursts of 2 to 5, faults on every attempt) add time here and nothing n8n-specific.
 */
const REAL_N8N_SCENARIOS = [
	'no fault (baseline)',
	'503 burst of 1',
	'503 burst of 6',
	'502 x3',
	'504 x3',
	'HTML 502 error page x3',
	'429 storm x8, Retry-After: 1',
	'429 storm x8, Retry-After: HTTP-date',
	'429 storm x8, no Retry-After',
	'429 storm x8, Retry-After: garbage',
	'connection reset before the body x3',
	'connection reset after the body x3',
	'server hangs x2 (Timeout 1 s)',
	'malformed JSON in the 2xx body x1',
	'empty 2xx body x1',
	'list page without a list',
	'signed URL expired (file host 403)',
	'truncated recording body x2',
];

/**
 * Runs in flight at once. Each is mostly waiting (backoff, Retry-After, a 1 s timeout), but
 * n8n shares two cores with this process: more at once and a healthy answer could take longer
 * than the 1 s Timeout of the hang scenario, which would turn a 201 into a retry.
 */
const CONCURRENT_RUNS = 8;

/** The engine matrix's operations, plus List Calls with Return All; the label names the rows. */
const OPERATIONS_IN_N8N: Array<{ label: string; operation: Operation }> = [
	...OPERATIONS.map((operation) => ({ label: operation.name, operation })),
	{ label: 'List Calls (Return All)', operation: listAllCalls },
];

interface Case {
	title: string;
	label: string;
	operation: Operation;
	scenario: Scenario;
	order: number;
	apiKey: string;
}

const cases: Case[] = OPERATIONS_IN_N8N.flatMap(({ label, operation }) =>
	SCENARIOS.filter(
		(scenario) =>
			REAL_N8N_SCENARIOS.includes(scenario.name) &&
			(scenario.only?.includes(operation.name) ?? true),
	).map((scenario) => ({ label, operation, scenario })),
).map(({ label, operation, scenario }, order) => ({
	title: `${label}: ${scenario.name}`,
	label,
	operation,
	scenario,
	order,
	// A key per run: a leak names its run, and n8n's process-wide rate budget keeps runs apart.
	apiKey: sentinelKey(`real n8n fault matrix: ${label} / ${scenario.name}`),
}));

const results = new ResultsCollector('fault-matrix-real-n8n', 'real n8n');
let session: Session;
const outcomes = new Map<number, Promise<ResultRow>>();

function emptyRow({ label, scenario }: Case): ResultRow {
	return new Tally(scenario.name, label).row;
}

async function runCase(testCase: Case, runner: RealN8nRunner): Promise<ResultRow> {
	const { operation, scenario, apiKey, label } = testCase;
	const placesToSearch = (run: OperationRun) => {
		const { stored } = run.result as RealN8nResult;
		return {
			'stored execution data': `${stored.rawData ?? ''}\n${stored.rawWorkflowData ?? ''}`,
			'n8n server log': session.serverLog(),
		};
	};
	const inRealN8n: WorkflowRunner = (workflow, credentials) => runner.run(workflow, credentials);
	const { row } = await runScenario(operation, scenario, apiKey, label, placesToSearch, inRealN8n);
	return row;
}

beforeAll(async () => {
	session = await openSession({
		emulator: { rateLimit: false },
		// Debug logging is where a careless node or helper would print request options.
		env: { N8N_LOG_LEVEL: 'debug' },
	});
	// Get Recording's check reads the downloaded bytes through n8n-core's BinaryDataService: point
	// it at the folder where this n8n stores binary data (filesystem mode, the sandbox default).
	process.env.N8N_BINARY_DATA_STORAGE_PATH = join(session.sandbox.userFolder, '.n8n', 'storage');
	await Container.get(BinaryDataService).init();

	const runner = new RealN8nRunner(session);
	const limit = pool(CONCURRENT_RUNS);
	// The runs that mostly wait (429 backoff, timeouts, long 503 bursts) start first, so the
	// quick ones fill the gaps instead of the slowest deciding the end alone.
	const waitsLong = ({ scenario }: Case) => /429|hangs|burst of 6/.test(scenario.name);
	for (const testCase of [...cases.filter(waitsLong), ...cases.filter((c) => !waitsLong(c))]) {
		const outcome = limit(() => runCase(testCase, runner));
		// Awaited by its test; this only keeps a failure from counting as unhandled meanwhile.
		outcome.catch(() => {});
		outcomes.set(testCase.order, outcome);
	}
}, 600_000);

afterAll(async () => {
	// Runs still in flight after a failure must not outlive the server they talk to.
	await Promise.allSettled(outcomes.values());
	// Without a server nothing ran: keep the previous results rather than write an empty table.
	if (outcomes.size > 0) results.write();
	await session?.close();
});

describe('Fault matrix in a real n8n', () => {
	test('every chosen scenario is one of the engine matrix', () => {
		const known = SCENARIOS.map((scenario) => scenario.name);
		expect(REAL_N8N_SCENARIOS.filter((name) => !known.includes(name))).toEqual([]);
	});

	test.each(cases)('$title', async (testCase) => {
		const { order } = testCase;
		const row = await outcomes.get(order)!.catch((error: Error) => {
			// A run that broke off still gets its row, so RELIABILITY.md shows it failing.
			results.add(order, {
				...emptyRow(testCase),
				problems: [`the run failed: ${error.message}`],
			});
			throw error;
		});
		results.add(order, row);
		expect(row.problems).toEqual([]);
		expect(row.lost).toBe(0);
		expect(row.leaked).toBe(0);
		expect(row.success + row.error).toBe(row.itemsIn);
	});

	// Runs last: every sentinel key has been used by now, in runs that succeeded and failed.
	test('no sentinel key anywhere in the database or the whole server log', async () => {
		const database = await readDatabaseText(session.sandbox);
		const log = session.serverLog();
		// The search must cover something: failed items are stored, and the log is at debug level.
		expect(database).toContain("refused the recording's download link, even a fresh one (403)");
		expect(log).toMatch(/\| debug \| Running node "Get Recording" started/);
		const leaks: string[] = [];
		for (const { title, apiKey, order } of cases) {
			const places = placesContaining(apiKey, { database, 'n8n server log': log });
			if (places.length === 0) continue;
			leaks.push(`${title}: ${places.join(', ')}`);
			const row = await outcomes.get(order)!.catch(() => emptyRow(cases[order]));
			results.add(order, {
				...row,
				leaked: row.leaked + places.length,
				problems: [
					...(row.problems ?? []),
					...places.map((place) => `the API key appears in the ${place}`),
				],
			});
		}
		expect(leaks).toEqual([]);
	});
});
