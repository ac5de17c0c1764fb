/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';

/**
 * Where the suites leave their rows, next to the reliability suites (git ignores it);
 * test/reliability/report.ts merges every `*.json` file found here.
 */
export const RESULTS_DIR = join(__dirname, '..', '..', 'test', 'reliability', '.results');

/** One scenario run, as it appears in RELIABILITY.md. */
export interface ResultRow {
	scenario: string;
	operation: string;
	itemsIn: number;
	success: number;
	error: number;
	requestsSent: number;
	retries: number;
	/** Input items that reached neither output, or whose outcome disagrees with the server. */
	lost: number;
	/** Places the API key was found outside the Authorization header sent to the API origin. */
	leaked: number;
	/** Invariant violations found (empty when the row passed); also asserted by the test. */
	problems?: string[];
}

export interface ResultsFile {
	suite: string;
	/** 'engine': n8n-core's WorkflowExecute in-process; 'real n8n': the end-to-end suite. */
	where: 'engine' | 'real n8n';
	generatedAt: string;
	durationMs: number;
	rows: ResultRow[];
}

/** A row with nothing counted yet, that a fuzz property adds its runs up into. */
export function emptyRow(scenario: string, operation: string): ResultRow {
	const counts = { itemsIn: 0, success: 0, error: 0, requestsSent: 0, retries: 0, lost: 0 };
	return { scenario, operation, ...counts, leaked: 0, problems: [] };
}

/**
 * Collects the rows of one suite, in the order the suite declares its scenarios (tests may
 * finish in any order when they run concurrently), and writes them in `afterAll`.
 */
export function collectResults(suite: string, where: ResultsFile['where'] = 'engine') {
	const rows = new Map<number, ResultRow>();
	const startedAt = Date.now();
	return {
		add: (order: number, row: ResultRow) => void rows.set(order, row),
		write() {
			mkdirSync(RESULTS_DIR, { recursive: true });
			const file: ResultsFile = {
				suite,
				where,
				generatedAt: new Date().toISOString(),
				durationMs: Date.now() - startedAt,
				rows: [...rows.entries()].sort(([a], [b]) => a - b).map(([, row]) => row),
			};
			writeFileSync(join(RESULTS_DIR, `${suite}.json`), `${JSON.stringify(file, null, '\t')}\n`);
		},
	};
}
