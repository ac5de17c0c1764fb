import * as fs from 'fs';
import * as path from 'path';

import { runN8nCli, type N8nSandbox } from './sandbox';
import type { CredentialJson, RunData, WorkflowJson } from './types';

let counter = 0;
function writeInput(sandbox: N8nSandbox, prefix: string, value: unknown): string {
	const file = path.join(sandbox.userFolder, `${prefix}-${process.pid}-${++counter}.json`);
	fs.writeFileSync(file, JSON.stringify(value));
	return file;
}

/** Never echo the output of credential commands: it could contain the data we imported. */
function check(
	what: string,
	result: { code: number | null; stdout: string; stderr: string },
	quiet = false,
) {
	if (result.code === 0) return;
	const detail = quiet
		? '(output withheld: may contain secrets)'
		: `${result.stdout}\n${result.stderr}`;
	throw new Error(`n8n ${what} failed (exit ${result.code}) ${detail}`.trim());
}

/**
 * `n8n import:credentials`: the file is an array of {id, name, type, data}; a plain-object
 * `data` is encrypted by n8n with the sandbox key (an already encrypted string is kept).
 */
export async function importCredential(
	sandbox: N8nSandbox,
	credential: CredentialJson,
): Promise<void> {
	const file = writeInput(sandbox, 'credential', [credential]);
	try {
		check(
			'import:credentials',
			await runN8nCli(sandbox, ['import:credentials', `--input=${file}`]),
			true,
		);
	} finally {
		fs.rmSync(file, { force: true });
	}
}

/** `n8n import:workflow`; returns the workflow id (one is generated when missing). */
export async function importWorkflow(sandbox: N8nSandbox, workflow: WorkflowJson): Promise<string> {
	const withId = { ...workflow, id: workflow.id ?? newWorkflowId(), active: false };
	const file = writeInput(sandbox, 'workflow', withId);
	try {
		check('import:workflow', await runN8nCli(sandbox, ['import:workflow', `--input=${file}`]));
	} finally {
		fs.rmSync(file, { force: true });
	}
	return withId.id;
}

/** n8n ids are 16 alphanumeric characters. */
export function newWorkflowId(): string {
	const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	return Array.from({ length: 16 }, () => chars[Math.floor(Math.random() * chars.length)]).join('');
}

export interface ExecuteResult {
	/** Parsed run (IRun) when n8n printed one: on success, and on failure at info log level. */
	run?: RunData;
	ok: boolean;
	stdout: string;
	stderr: string;
	code: number | null;
}

/**
 * `n8n execute --id <id> --rawOutput`. The workflow must start with a Manual Trigger.
 * On success n8n prints `JSON.stringify(run, null, 2)`; on failure it logs
 * "Execution was NOT successful" followed by the same JSON and exits 1. Log lines share stdout.
 */
export async function executeWorkflow(
	sandbox: N8nSandbox,
	workflowId: string,
): Promise<ExecuteResult> {
	const result = await runN8nCli(sandbox, ['execute', `--id=${workflowId}`, '--rawOutput']);
	const run = parseExecuteOutput(result.stdout);
	return { run, ok: result.code === 0 && run !== undefined && run.status !== 'error', ...result };
}

/**
 * Finds the run JSON in `n8n execute` output. It is pretty-printed, so it starts on a line that
 * is exactly "{" and ends on a line that is exactly "}"; log lines around it are skipped. The
 * last parseable candidate with `data.resultData` wins.
 */
export function parseExecuteOutput(stdout: string): RunData | undefined {
	const lines = stdout.split(/\r?\n/);
	const starts = lines.flatMap((l, i) => (l === '{' ? [i] : []));
	const ends = lines.flatMap((l, i) => (l === '}' ? [i] : []));
	for (const start of starts.reverse()) {
		for (const end of ends.filter((e) => e > start).reverse()) {
			try {
				const parsed = JSON.parse(lines.slice(start, end + 1).join('\n')) as RunData;
				if (parsed?.data?.resultData) return parsed;
			} catch {
				// not this pair; try a shorter span
			}
		}
	}
	return undefined;
}

/** Imports credentials and the workflow, executes it once through the CLI. */
export async function runWorkflow(
	sandbox: N8nSandbox,
	workflow: WorkflowJson,
	credentials: CredentialJson[] = [],
): Promise<ExecuteResult & { workflowId: string }> {
	for (const credential of credentials) await importCredential(sandbox, credential);
	const workflowId = await importWorkflow(sandbox, workflow);
	return { ...(await executeWorkflow(sandbox, workflowId)), workflowId };
}
