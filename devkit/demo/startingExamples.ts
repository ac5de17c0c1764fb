/**
 * The examples that start from the tools users have (a Google Sheet, an n8n form, HubSpot, S3),
 * run in a real n8n against the emulator. Google and HubSpot cannot be reached offline, so their
 * nodes are replaced by stand-ins of the same name: the source by a Split Out of the rows the
 * test sends, a node writing back by a No Op whose items the test reads. Everything between
 * them, our node included, runs as imported. The form runs with nothing replaced. The
 * lead examples' runners are in leadExamples.ts, the recording examples' in recordingExamples.ts.
 */
import { nodeOutput, type ServerRunResult, type WorkflowJson } from '../n8n';

export const STARTING_EXAMPLES = {
	googleSheets: 'import-leads-from-google-sheets.json',
	leadForm: 'lead-form.json',
	hubspotSync: 'sync-hubspot-contacts.json',
	s3: 'save-recordings-to-s3.json',
	googleDrive: 'save-recordings-to-google-drive.json',
} as const;

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

// The S3 example's runner lives with the other recording examples; the demo imports it from here.
