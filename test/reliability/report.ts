/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Turns the reliability suites' results into RELIABILITY.md at the repository root.
 *
 *   npx jest test/reliability && npx ts-node --transpile-only test/reliability/report.ts
 *
 * Every `*.json` file in test/reliability/.results is merged. Each file is a `ResultsFile` (devkit/reliability/results.ts): `{ suite, where, generatedAt,
 * durationMs, rows }`, where `where` is 'engine' (in-process WorkflowExecute) or 'real n8n'
 * (the end-to-end suite writes its own file there with the same row shape).
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'fs';
import { arch, cpus, release, totalmem, type } from 'os';
import { join, resolve } from 'path';

import type { ResultRow, ResultsFile } from '../../devkit/reliability/results';
import { RESULTS_DIR } from '../../devkit/reliability/results';

const REPO = resolve(__dirname, '..', '..');
const OUTPUT = join(REPO, 'RELIABILITY.md');

/** Suites in the order the report shows them; others follow, by name. */
const SUITE_TITLES: Record<string, string> = {
	'fault-matrix': 'Fault matrix',
	'fault-matrix-real-n8n': 'Fault matrix',
	'fuzz-import-lead': 'Fuzzed input: Import Lead',
	'fuzz-parameters': 'Fuzzed input: List Calls and Get Recording',
	secrets: 'Secrets: the key in outputs and logs, sent to the API origin only, refused settings',
};

function readResults(): ResultsFile[] {
	const names = existsSync(RESULTS_DIR) ? readdirSync(RESULTS_DIR).sort() : [];
	const files = names
		.filter((name) => name.endsWith('.json'))
		.map((name) => JSON.parse(readFileSync(join(RESULTS_DIR, name), 'utf8')) as ResultsFile);
	const order = Object.keys(SUITE_TITLES);
	const rank = (file: ResultsFile) =>
		order.includes(file.suite) ? order.indexOf(file.suite) : order.length;
	return files.sort(
		(a, b) => rank(a) - rank(b) || a.suite.localeCompare(b.suite) || a.where.localeCompare(b.where),
	);
}

function packageVersion(name: string): string {
	const manifest = join(REPO, 'node_modules', name, 'package.json');
	return existsSync(manifest)
		? String(JSON.parse(readFileSync(manifest, 'utf8')).version)
		: 'not installed';
}

function passed(row: ResultRow): boolean {
	return row.lost === 0 && row.leaked === 0 && (row.problems ?? []).length === 0;
}

const cell = (text: string | number) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const tableRow = (cells: Array<string | number>) => `| ${cells.map(cell).join(' | ')} |`;
const titleOf = (file: ResultsFile) => SUITE_TITLES[file.suite] ?? file.suite;
const sum = (rows: ResultRow[], count: 'itemsIn' | 'lost' | 'leaked') =>
	rows.reduce((total, row) => total + row[count], 0);

function table(file: ResultsFile): string[] {
	return [
		'| where | operation | scenario | items in | success | error | requests sent | retries | lost | leaked | check |',
		'| --- | --- | --- | --: | --: | --: | --: | --: | --: | --: | --- |',
		...file.rows.map((row) => {
			const { itemsIn, success, error, requestsSent, retries, lost, leaked } = row;
			const counts = [itemsIn, success, error, requestsSent, retries, lost, leaked];
			const check = passed(row) ? 'ok' : '**FAIL**';
			return tableRow([file.where, row.operation, row.scenario, ...counts, check]);
		}),
	];
}

export function render(files: ResultsFile[], now = new Date()): string {
	const rows = files.flatMap((file) => file.rows);
	const failing = files.flatMap((file) =>
		file.rows.filter((row) => !passed(row)).map((row) => ({ file, row })),
	);
	const cpu = cpus();
	const lines = [
		'# Reliability report',
		'',
		'Generated from the results of the reliability suites (`test/reliability`): every scenario runs',
		'workflows through n8n against the API emulator and asserts that each input item ends in exactly',
		'one output (success or error, paired to its input, with a clear message), that nothing is sent',
		'twice except retries, and that the API key is never leaked. Regenerate with',
		'`npm run reliability` (the engine suites, the real-n8n fault matrix, then this report).',
		'',
		`- Date: ${now.toISOString()}`,
		`- Machine: ${type()} ${release()} ${arch()}, ${cpu.length} x ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
		`- n8n-core ${packageVersion('n8n-core')}, n8n-workflow ${packageVersion('n8n-workflow')}, fast-check ${packageVersion('fast-check')}`,
		'- Where: `engine` = n8n-core `WorkflowExecute` in-process; `real n8n` = the end-to-end suite',
		'- Columns: items in = input items; success / error = input items that ended in that output;',
		'  requests sent = to the API and the file host, retries included; retries = requests that',
		'  repeated an earlier one; lost = input items with no outcome or an outcome the server',
		'  contradicts; leaked = places the API key was found outside the API request header.',
		'',
		'## Summary',
		'',
	];
	if (files.length === 0) {
		lines.push('No results found: run `npx jest test/reliability` first.', '');
		return `${lines.join('\n')}\n`;
	}
	const totals = `${sum(rows, 'itemsIn')} input items, ${sum(rows, 'lost')} lost, ${sum(rows, 'leaked')} leaked`;
	lines.push(
		`${rows.length} scenarios, ${totals}, ${failing.length} failing.`,
		'',
		'| suite | where | run at | duration | scenarios |',
		'| --- | --- | --- | --: | --: |',
		...files.map((file) => {
			const duration = `${(file.durationMs / 1000).toFixed(1)} s`;
			return tableRow([titleOf(file), file.where, file.generatedAt, duration, file.rows.length]);
		}),
		'',
		...files.flatMap((file) => [`## ${titleOf(file)} (${file.where})`, '', ...table(file), '']),
	);
	if (failing.length > 0) {
		lines.push('## Problems', '');
		for (const { file, row } of failing) {
			const problems = row.problems?.length
				? row.problems.join('; ')
				: `lost ${row.lost}, leaked ${row.leaked}`;
			lines.push(`- ${file.where} / ${row.operation} / ${row.scenario}: ${cell(problems)}`);
		}
		lines.push('');
	}
	return `${lines.join('\n')}\n`;
}

if (require.main === module) {
	const files = readResults();
	writeFileSync(OUTPUT, render(files));
	const rows = files.flatMap((file) => file.rows);
	const failing = rows.filter((row) => !passed(row)).length;
	console.log(
		`${OUTPUT}: ${files.length} result files, ${rows.length} scenarios, ${failing} failing`,
	);
	process.exitCode = failing > 0 ? 1 : 0;
}
