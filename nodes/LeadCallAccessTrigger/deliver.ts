import type { IDataObject, INodeExecutionData, IPollFunctions, IRun } from 'n8n-workflow';

import type { RecordingAnswer } from '../shared/recording';
import { askForRecording, downloadRecording, noRecordingError } from '../shared/recording';
import { pause } from '../shared/transport';
import type { TrackedCall } from './calls';
import { callDate } from './calls';
import type { HeldCall, Position } from './position';
import { writePosition } from './position';
import type { TriggerSettings } from './settings';

/**
 * Delivering what a check found: the calls held back by earlier checks (the older), then the
 * new ones, oldest first, in executions of at most Calls per Execution, one after the other.
 *
 * Each execution is started with n8n's own `__emit` and a done promise (as n8n's queue triggers
 * acknowledge a message once its execution finished), and the next one only once it has
 * finished. So a check of any size holds one execution's files at a time (n8n 1.x keeps them in
 * memory), and the executions list shows the export as it goes.
 *
 * The position moves past an execution's calls once it has finished. n8n saves the trigger's
 * static data when the trigger starts an execution, so the position saved is always the one
 * after the executions that finished: when n8n stops in the middle (killed, say), the next check
 * starts again with the calls of the execution that was running, and at most those come twice.
 * After the last execution the check returns an empty list: n8n starts one more execution, without
 * calls, and saves the final position with it.
 *
 * Each call's item is built by `itemFor`, with its recording when Download Recording is on.
 */

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

/** A call to deliver: `since` is set for a call held back (when the trigger first asked). */
interface Entry {
	call: TrackedCall;
	since?: number;
}

/** What a check found: the new calls, oldest first, and the position once the first n are handled. */
export interface Found {
	calls: TrackedCall[];
	after: (handled: number) => Position;
}

/**
 * Add Summary Item: the check's last execution gets one item counting what it delivered, in
 * place of the empty item list it ends with otherwise (see above), for a morning message.
 */
function summaryItem(
	delivered: Array<RecordingStatus | undefined>,
	heldForLater: number,
): INodeExecutionData {
	const count = (status: RecordingStatus) => delivered.filter((each) => each === status).length;
	return {
		json: {
			summary: true,
			callsDelivered: delivered.length,
			withRecording: count('downloaded'),
			missed: count('none'),
			stillProcessing: count('processing'),
			heldForLater,
			checkedAt: new Date().toISOString(),
		},
	};
}

/** The longest pause between two questions while a check waits for recordings. */
const MAX_RECHECK_MS = 30_000;

export async function deliver(
	this: IPollFunctions,
	held: HeldCall[],
	found: Found,
	settings: TriggerSettings,
	staticData: IDataObject,
): Promise<INodeExecutionData[][] | null> {
	let handled = 0; // new calls handled (emitted or held back)
	const delivered: Array<RecordingStatus | undefined> = []; // for the summary item
	let executions = 0;
	let batch: INodeExecutionData[] = [];

	const save = (stillHeld: HeldCall[]) =>
		writePosition(staticData, { ...found.after(handled), held: stillHeld });

	/** Starts an execution with the batch and waits until n8n has finished it. */
	const flush = async (stillHeld: () => HeldCall[]): Promise<void> => {
		const done = this.helpers.createDeferredPromise<IRun | undefined>();
		this.__emit([batch], undefined, done);
		batch = [];
		executions++;
		// A failed execution stays in n8n's executions list, where it can be retried with its calls.
		await done.promise;
		save(stillHeld());
	};

	/** One pass over the entries; returns those still held back. */
	const pass = async (entries: Entry[]): Promise<HeldCall[]> => {
		const stillHeld: HeldCall[] = [];
		// Entries not reached yet that were held already stay held; new calls stay unhandled.
		const rest = (from: number) =>
			entries
				.slice(from)
				.filter((entry) => entry.since !== undefined)
				.map((entry) => ({ call: entry.call, since: entry.since! }));
		for (let index = 0; index < entries.length; index++) {
			const { call } = entries[index];
			const since = entries[index].since ?? Date.now();
			if (entries[index].since === undefined) handled++;
			const item =
				settings.keepCallOrder && stillHeld.length > 0
					? undefined
					: await itemFor.call(this, call, since, settings);
			if (item === undefined) stillHeld.push({ call, since });
			else {
				batch.push(item);
				delivered.push(item.json.recordingStatus as RecordingStatus | undefined);
			}
			if (batch.length >= settings.callsPerExecution) {
				await flush(() => [...stillHeld, ...rest(index + 1)]);
			}
		}
		if (batch.length > 0) await flush(() => stillHeld);
		return stillHeld;
	};

	const entries: Entry[] = [
		...held.map(({ call, since }) => ({ call, since })),
		...found.calls.map((call) => ({ call })),
	];
	let stillHeld = await pass(entries);
	// The next check comes after Wait for Recording has passed: wait for the recordings here,
	// up to Wait for Recording. Those still being processed then are left to the next checks.
	const waitEnds = () =>
		Math.max(...stillHeld.map(({ since }) => since + settings.recordingWaitMs));
	for (let pauseMs = 2000; settings.waitInCheck && stillHeld.length > 0;) {
		const left = waitEnds() - Date.now();
		if (left <= 0) break;
		await pause.call(this, Math.min(pauseMs, left));
		pauseMs = Math.min(pauseMs * 2, MAX_RECHECK_MS);
		stillHeld = await pass(stillHeld);
	}
	save(stillHeld);
	if (executions === 0) return null;
	return settings.summaryItem ? [[summaryItem(delivered, stillHeld.length)]] : [[]];
}
