import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { downloadRecording, fetchRecordingInfo } from '../../../shared/recording';
import { optionsCollection, readRequestPolicy } from '../../../shared/options/requestOptions';

const properties: INodeProperties[] = [
	{
		displayName: 'Call ID',
		name: 'callId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. call_000120',
		description:
			'ID of the call whose recording to fetch, e.g. call_000120. Map it from a call that Get Many Calls or the trigger returned.',
	},
	{
		displayName: 'Download',
		name: 'download',
		type: 'boolean',
		default: false,
		description:
			'Whether to also download the recording file and attach it to the item as binary data. Off: the item only holds the signed URL, which expires. Leave off when an AI agent uses this node as a tool: agents cannot read files.',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { download: [true] } },
		hint: 'The name of the output binary field to put the file in',
	},
	optionsCollection([]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['recording'], operation: ['get'] } },
	properties,
);

/** Why a call ID cannot be sent as one URL path segment, if it cannot. */
function pathSegmentProblem(callId: string): string | undefined {
	// URL parsers resolve these even when percent-encoded: "/v1/calls/../recording" is "/v1/recording".
	if (callId === '.' || callId === '..') return `"${callId}" would change the request path`;
	try {
		encodeURIComponent(callId);
		return undefined;
	} catch {
		return 'contains broken Unicode text (an unpaired surrogate) that cannot be sent';
	}
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const rawCallId = this.getNodeParameter('callId', itemIndex, '') as unknown;
	const callId =
		typeof rawCallId === 'string' || typeof rawCallId === 'number' ? String(rawCallId).trim() : '';
	if (callId === '') {
		throw new NodeOperationError(
			this.getNode(),
			typeof rawCallId === 'object' && rawCallId !== null
				? 'Call ID must be text, but got an object or list'
				: 'Call ID is required but empty',
			{ itemIndex, description: 'Map the "id" field of a call from List Calls.' },
		);
	}
	const problem = pathSegmentProblem(callId);
	if (problem) {
		throw new NodeOperationError(this.getNode(), `Call ID ${problem}`, {
			itemIndex,
			description: 'Map the "id" field of a call from List Calls.',
		});
	}
	const policy = readRequestPolicy.call(this, itemIndex);
	const info = await fetchRecordingInfo.call(this, callId, policy);
	const item: INodeExecutionData = { json: info.json, pairedItem: { item: itemIndex } };

	if (this.getNodeParameter('download', itemIndex, false) as boolean) {
		const binaryPropertyName = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
		const binary = await downloadRecording.call(this, callId, info, policy);
		item.binary = { [binaryPropertyName]: binary };
	}
	return [item];
}
