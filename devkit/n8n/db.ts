/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
import * as path from 'path';

import { n8nModulesDir } from './n8n-install';
import { runProcess } from './process';
import type { N8nSandbox } from './sandbox';
import type { NodeExecutionItem, RunData } from './types';

export interface StoredExecution {
	id: number;
	workflowId: string;
	status: string;
	mode: string;
	/** execution_data.data exactly as stored (flatted text). */
	rawData: string | null;
	rawWorkflowData: string | null;
	/** rawData decoded: the IRun `data` part. */
	data: RunData['data'] | null;
}

const SCRIPT = path.join(__dirname, 'db-query.js');

/** The sqlite3 addon in the cache is built for Node 24, so queries run in a Node 24 child. */
async function query<T>(sandbox: N8nSandbox, args: string[]): Promise<T> {
	const result = await runProcess(
		sandbox.install.node24Path,
		[SCRIPT, sandbox.databaseFile, ...args],
		{ env: { ...process.env, LCA_N8N_MODULES: n8nModulesDir(sandbox.install) }, timeoutMs: 60_000 },
	);
	if (result.code !== 0) throw new Error(`db-query ${args[0]} failed: ${result.stderr}`);
	return JSON.parse(result.stdout) as T;
}

/** Whether n8n has finished the execution and written its data. */
export const isFinished = (execution: StoredExecution): boolean =>
	execution.data !== null && !['new', 'running', 'waiting'].includes(execution.status);

/** Items of one node output in a stored execution (first run); none when the node did not run. */
export function storedOutput(
	execution: StoredExecution,
	nodeName: string,
	outputIndex = 0,
): NodeExecutionItem[] {
	return execution.data?.resultData.runData[nodeName]?.[0]?.data?.main?.[outputIndex] ?? [];
}

/** Executions n8n stored, newest first (optionally of one workflow). */
export function readStoredExecutions(
	sandbox: N8nSandbox,
	workflowId?: string,
): Promise<StoredExecution[]> {
	return query(sandbox, ['executions', ...(workflowId ? [workflowId] : [])]);
}

/**
 * Every row of every table as one string, for "this secret is never stored" assertions.
 * execution_entity + execution_data hold executions; credentials_entity holds credentials
 * encrypted, so a plaintext key must not show up anywhere.
 */
export async function readDatabaseText(sandbox: N8nSandbox): Promise<string> {
	return JSON.stringify(await query<Record<string, unknown[]>>(sandbox, ['dump']));
}
