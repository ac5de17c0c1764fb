import type { IBinaryData, INode, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { downloadRecording, fetchRecordingInfo } from '../shared/recording';
import type { RequestPolicy } from '../shared/transport';
import type { TrackedCall } from './calls';
import { CallListError } from './calls';
import type { TriggerSettings } from './settings';

/** What n8n shows for a failed poll: node errors as they are, list problems with their advice. */
export function toNodeError(node: INode, error: unknown): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof CallListError) {
		return new NodeOperationError(node, error.message, { description: error.description });
	}
	return new NodeOperationError(node, error as Error);
}

/** The call's recording, or undefined when the API has none for it (404: a missed call, say). */
async function recordingOf(
	this: IPollFunctions,
	callId: string,
	policy: RequestPolicy,
): Promise<IBinaryData | undefined> {
	let info;
	try {
		info = await fetchRecordingInfo.call(this, callId, policy);
	} catch (error) {
		// Any other failure fails the poll, which keeps the position: the next poll tries again.
		if (error instanceof NodeApiError && error.httpCode === '404') return undefined;
		throw toNodeError(this.getNode(), error);
	}
	return await downloadRecording.call(this, callId, info, policy);
}

/** The items for `calls`, in order, with their recordings when asked to download them. */
export async function toItems(
	this: IPollFunctions,
	calls: TrackedCall[],
	settings: TriggerSettings,
): Promise<INodeExecutionData[]> {
	const items: INodeExecutionData[] = [];
	// One at a time, in emitting order: requests are paced per key anyway.
	for (const call of calls) {
		const item: INodeExecutionData = { json: call.json };
		if (settings.binaryPropertyName !== undefined) {
			const binary = await recordingOf.call(this, call.id, settings.policy);
			if (binary) item.binary = { [settings.binaryPropertyName]: binary };
		}
		items.push(item);
	}
	return items;
}
