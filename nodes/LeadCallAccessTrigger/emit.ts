import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { askForRecording, downloadRecording } from '../shared/recording';
import type { TrackedCall } from './calls';
import type { TriggerSettings } from './settings';

/**
 * The item for a call, with its recording when Download Recording is on; undefined while the
 * recording is not there yet (still being processed, or a 404 that may mean "not yet") and
 * Wait for Recording, counted from `since` (when the trigger first asked), has not passed. Then
 * the call comes without a file, marked `recordingMissing: true` (missed calls never have one).
 * Any failure other than "not there yet" is thrown: the check fails and keeps its position
 * (held calls included), and the next check asks again.
 */
export async function itemFor(
	this: IPollFunctions,
	call: TrackedCall,
	since: number,
	settings: TriggerSettings,
): Promise<INodeExecutionData | undefined> {
	const { binaryPropertyName } = settings;
	if (binaryPropertyName === undefined) return { json: call.json };
	const answer = await askForRecording.call(this, call.id, settings.policy);
	if (answer.state === 'ready') {
		const binary = await downloadRecording.call(this, call.id, answer.url, settings.policy);
		return {
			json: { ...call.json, recordingMissing: false },
			binary: { [binaryPropertyName]: binary },
		};
	}
	if (Date.now() - since >= settings.recordingWaitMs) {
		return { json: { ...call.json, recordingMissing: true } };
	}
	return undefined;
}
