/** The parts of n8n's IRun / IWorkflowBase the harness relies on (kept loose on purpose). */

export interface NodeExecutionItem {
	json: Record<string, unknown>;
	binary?: Record<
		string,
		{ mimeType?: string; fileName?: string; id?: string; [k: string]: unknown }
	>;
	[k: string]: unknown;
}

interface TaskData {
	/** `main[outputIndex]` is the item list of that output (index 1 = error output when enabled). */
	data?: { main?: Array<NodeExecutionItem[] | null> };
	error?: { message?: string; description?: string; [k: string]: unknown };
	[k: string]: unknown;
}

export interface RunData {
	status?: string;
	finished?: boolean;
	mode?: string;
	data: {
		resultData: {
			runData: Record<string, TaskData[]>;
			error?: { message?: string; [k: string]: unknown };
		};
		[k: string]: unknown;
	};
	[k: string]: unknown;
}

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: Array<{
		id?: string;
		name: string;
		type: string;
		typeVersion: number;
		position: [number, number];
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
		webhookId?: string;
		[k: string]: unknown;
	}>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	active?: boolean;
	[k: string]: unknown;
}

export interface CredentialJson {
	id: string;
	name: string;
	type: string;
	/** Plain object: n8n's import:credentials encrypts it with the sandbox key. */
	data: Record<string, unknown>;
}

/** Items of one node output (default: first run, main output 0). */
export function nodeOutput(
	run: RunData,
	nodeName: string,
	outputIndex = 0,
	runIndex = 0,
): NodeExecutionItem[] {
	const task = run.data.resultData.runData[nodeName]?.[runIndex];
	if (!task)
		throw new Error(
			`node "${nodeName}" did not run (ran: ${Object.keys(run.data.resultData.runData).join(', ')})`,
		);
	return task.data?.main?.[outputIndex] ?? [];
}
