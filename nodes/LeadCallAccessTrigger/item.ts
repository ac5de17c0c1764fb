import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { RecordingAnswer } from '../shared/recording';
import { askForRecording, downloadRecording, noRecordingError } from '../shared/recording';
import type { TrackedCall } from './calls';
import { callDate } from './timeZone';
import type { TriggerSettings } from './settings';

/** The item a call starts the workflow with, and its recording (deliver.ts decides when). */

/**
 * Why an item comes without a file (`recordingStatus`), for an IF or Switch node to route on:
 * - `downloaded`: the file is attached;
 * - `none`: the service says the call has no recording (a missed call);
 * - `processing`: the service still said it was being processed when the trigger gave up.
 */
export type RecordingStatus = 'downloaded' | 'none' | 'processing';

/** The call says it has a recording (the spec shows no call fields: the common names). */
function callSaysRecorded(call: IDataObject): boolean {
	return call.has_recording === true || call.hasRecording === true;
}

/**
 * Whether the answer says the recording is still to come: "processing" (202, or no URL yet),
 * or a 404 for a call whose own record says it has one (services that answer 404 until ready).
 */
function stillComing(answer: Exclude<RecordingAnswer, { state: 'ready' }>, call: IDataObject) {
	return answer.state === 'processing' || callSaysRecorded(call);
}

/**
 * The item for a call, with its recording when Download Recording is on; undefined while the
 * call is held for its recording. Counted from `since` (when the trigger first asked):
 * - a recording the service says is still coming is held up to Give Up on Processing After,
 *   asked again at each check, then the call comes with `recordingStatus: "processing"`;
 * - a 404 may mean "not yet" for a moment: held up to Wait for Recording, then the call comes
 *   with `recordingStatus: "none"` (missed calls never have one).
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
	const date = callDate(call.at, settings.timeZone);
	const json = { ...call.json, ...(date === undefined ? {} : { callDate: date }) };
	const answer = await askForRecording.call(this, call.id, settings.policy);
	if (answer.state === 'ready') {
		const { binary, fields } = await downloadRecording.call(
			this,
			call.id,
			answer.url,
			settings.policy,
		);
		const status: RecordingStatus = 'downloaded';
		return {
			json: { ...json, recordingStatus: status, recordingMissing: false, ...fields },
			binary: { [binaryPropertyName]: binary },
		};
	}
	// An answer the node cannot read (an HTML page, "ready" without a link it can read) does not
	// say "processing": holding the call would only deliver it without its file a day later.
	if (answer.state === 'unreadable') {
		throw noRecordingError(this.getNode(), call.id, answer);
	}
	const coming = stillComing(answer, call.json);
	const waited = Date.now() - since;
	if (waited < (coming ? settings.processingLimitMs : settings.recordingWaitMs)) return undefined;
	const status: RecordingStatus = coming ? 'processing' : 'none';
	return { json: { ...json, recordingStatus: status, recordingMissing: true } };
}
