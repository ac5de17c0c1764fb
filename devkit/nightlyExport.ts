/**
 * The nightly export as a user first builds it (issue 34), shared by the e2e tests and
 * `npm run bench:nightly`: On New Call with Download Recording → Write Files to Disk.
 */
import { node, TRIGGER_NAME, triggerWorkflow } from './workflows';
import type { WorkflowJson } from './n8n/types';

/**
 * Poll Times: once a day (UTC), at the first whole minute at least `leadMs` from now, so the
 * "night" comes soon, and after the workflow is published even on a busy machine.
 */
export function dailyAtNextMinute(leadMs = 30_000): { item: Array<Record<string, unknown>> } {
	const at = new Date(Math.ceil((Date.now() + leadMs) / 60_000) * 60_000);
	return { item: [{ mode: 'everyDay', hour: at.getUTCHours(), minute: at.getUTCMinutes() }] };
}

/** The simplest export: each call's recording written to `<folder>/<call id>.mp3`. */
export function exportToDiskWorkflow(options: {
	credentialId: string;
	credentialName: string;
	folder: string;
	pollTimes: unknown;
	/** The trigger's Options (defaults when absent). */
	triggerOptions?: Record<string, unknown>;
}): WorkflowJson {
	return triggerWorkflow({
		credentialId: options.credentialId,
		credentialName: options.credentialName,
		parameters: {
			pollTimes: options.pollTimes,
			downloadRecording: true,
			options: options.triggerOptions ?? {},
		},
		settings: { timezone: 'UTC' },
		nodes: [
			node('Write Files to Disk', 'n8n-nodes-base.readWriteFile', 1, {
				operation: 'write',
				fileName: `=${options.folder}/{{ $json.id }}.mp3`,
				dataPropertyName: 'data',
			}),
		],
		connections: {
			[TRIGGER_NAME]: { main: [[{ node: 'Write Files to Disk', type: 'main', index: 0 }]] },
		},
	});
}
