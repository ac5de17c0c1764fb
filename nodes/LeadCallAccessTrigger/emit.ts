import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { askForRecording, downloadRecording } from '../shared/recording';
import type { TrackedCall } from './calls';
import type { HeldCall } from './position';
import type { TriggerSettings } from './settings';

/** The items a poll emits, and the calls it holds back for a later poll. */
export interface Emission {
	items: INodeExecutionData[];
	held: HeldCall[];
}

/**
 * The items for the calls a poll handles: those held back by earlier polls first (they are the
 * older), then the new ones, oldest first.
 *
 * With Download Recording on, a call whose recording is not there yet (still being processed,
 * or a 404 that may mean "not yet") is held back and asked again on each later poll. It is
 * emitted once: with its file as soon as the recording comes, or without one, marked
 * `recordingMissing: true`, at the first poll after Wait for Recording has passed. Meanwhile the
 * calls behind it are emitted as they come, unless Keep Call Order is on.
 */
export async function toItems(
	this: IPollFunctions,
	held: HeldCall[],
	fresh: TrackedCall[],
	settings: TriggerSettings,
): Promise<Emission> {
	const queue = [...held.map((entry) => entry.call), ...fresh];
	const { binaryPropertyName } = settings;
	if (binaryPropertyName === undefined) {
		return { items: queue.map((call) => ({ json: call.json })), held: [] };
	}
	const heldSince = new Map(held.map((entry) => [entry.call.id, entry.since]));
	const items: INodeExecutionData[] = [];
	const stillHeld: HeldCall[] = [];
	// One at a time, in emitting order: requests are paced per key anyway.
	for (const call of queue) {
		const since = heldSince.get(call.id) ?? Date.now();
		if (settings.keepCallOrder && stillHeld.length > 0) {
			stillHeld.push({ call, since });
			continue;
		}
		// Any failure other than "not there yet" fails the poll, which keeps the position (and
		// the held calls): the next poll asks again.
		const answer = await askForRecording.call(this, call.id, settings.policy);
		if (answer.state === 'ready') {
			const binary = await downloadRecording.call(this, call.id, answer.url, settings.policy);
			items.push({
				json: { ...call.json, recordingMissing: false },
				binary: { [binaryPropertyName]: binary },
			});
		} else if (Date.now() - since >= settings.recordingWaitMs) {
			items.push({ json: { ...call.json, recordingMissing: true } });
		} else {
			stillHeld.push({ call, since });
		}
	}
	return { items, held: stillHeld };
}
