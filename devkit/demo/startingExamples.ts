/**
 * Stand-ins for the tools users start from that cannot be reached offline (Google Sheets,
 * HubSpot): the source becomes a Split Out of the rows the test sends, a node writing back a No
 * Op whose items the test reads. Everything between them, our node included, runs as imported.
 * Google Drive's stand-in is in recordingExamples.ts.
 */
import { nodeOutput, type ServerRunResult, type WorkflowJson } from '../n8n';

export type Row = Record<string, unknown>;

/** `source` emits the rows of the run's input under `field`; each of `sinks` passes items on. */
export function withStandIns(
	workflow: WorkflowJson,
	source: { name: string; field: string },
	sinks: string[],
): WorkflowJson {
	const nodes = workflow.nodes.map((node) => {
		// A stand-in needs no credential.
		const rest = { ...node, credentials: undefined };
		if (node.name === source.name) {
			return {
				...rest,
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				parameters: {
					fieldToSplitOut: `body.${source.field}`,
					include: 'noOtherFields',
					options: {},
				},
			};
		}
		if (sinks.includes(node.name)) {
			return { ...rest, type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} };
		}
		return node;
	});
	return { ...workflow, nodes };
}

/** Every item a node passed on, over all its runs (a node fed by two branches runs twice). */
export function allRunsOf(run: ServerRunResult, nodeName: string): Row[] {
	const runs = run.run.data.resultData.runData[nodeName] ?? [];
	return runs.flatMap((_, runIndex) =>
		nodeOutput(run.run, nodeName, 0, runIndex).map((item) => item.json),
	);
}
