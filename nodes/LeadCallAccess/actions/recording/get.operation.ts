import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import {
	GET_RECORDING,
	askUntilReady,
	downloadRecording,
	noRecordingError,
} from '../../../shared/recording';
import { operationError } from '../../../shared/errors';
import { optionsCollection, readRequestPolicy } from '../../../shared/options';
import type { OperationDeclaration } from '../operation';

/** Version 1 saved the call ID as plain text; those workflows keep that field. */
const callIdV1: INodeProperties = {
	displayName: 'Call ID',
	name: 'callId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. call_000120',
	description:
		'ID of the call whose recording to fetch. Map it from a call that Get Many Calls or the trigger returned.',
	displayOptions: { show: { '@version': [1] } },
};

const callId: INodeProperties = {
	displayName: 'Call',
	name: 'callId',
	type: 'resourceLocator',
	required: true,
	default: { mode: 'list', value: '' },
	description: 'The call whose recording to fetch',
	displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a call...',
			typeOptions: { searchListMethod: 'searchCalls', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. call_000120',
			validation: [
				{
					type: 'regex',
					properties: {
						// Any printable text without a slash: the spec does not show the ID format.
						regex: '^[^/\\s][^/]*$',
						errorMessage: 'A call ID has no slashes and does not start with a space',
					},
				},
			],
		},
	],
};

const properties: INodeProperties[] = [
	callIdV1,
	callId,
	{
		displayName: 'Download',
		name: 'download',
		type: 'boolean',
		default: false,
		description:
			'Whether to also download the recording file and attach it to the item. Off: the item holds only a link to it, which expires after a while. Leave off for AI agents.',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { download: [true] } },
		hint: 'The name the file gets in the item (default data): the node that saves or sends it, such as Write Files to Disk, asks for this name',
	},
	optionsCollection([
		{
			displayName: 'Wait for Recording (Seconds)',
			name: 'waitForRecording',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 900 },
			default: 0,
			description:
				'A recording is ready a minute or two after its call. While it is still being processed, ask again for up to this long before the item fails. 0: fail at once.',
		},
	]),
];

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

async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	// Version 2 stores a resource locator, version 1 plain text; extractValue reads both.
	const rawCallId = this.getNodeParameter('callId', itemIndex, '', {
		extractValue: true,
	}) as unknown;
	const callId =
		typeof rawCallId === 'string' || typeof rawCallId === 'number' ? String(rawCallId).trim() : '';
	if (callId === '') {
		throw operationError(
			this.getNode(),
			typeof rawCallId === 'object' && rawCallId !== null
				? 'Call ID must be text, but got an object or list: map the "id" field of one call'
				: 'Call ID is empty: map the "id" field of a call from Get Many Calls or the trigger',
			{ itemIndex, description: 'Map the "id" field of a call from Get Many Calls.' },
		);
	}
	const problem = pathSegmentProblem(callId);
	if (problem) {
		throw operationError(this.getNode(), `Call ID ${problem}`, {
			itemIndex,
			description: 'Map the "id" field of a call from Get Many Calls.',
		});
	}
	const policy = readRequestPolicy.call(this, itemIndex);
	const waitSeconds = Number(this.getNodeParameter('options.waitForRecording', itemIndex, 0));
	const waitMs = Number.isFinite(waitSeconds) && waitSeconds > 0 ? waitSeconds * 1000 : 0;
	const answer = await askUntilReady.call(this, callId, policy, waitMs);
	if (answer.state !== 'ready') throw noRecordingError(this.getNode(), callId, answer, itemIndex);
	const item: INodeExecutionData = { json: answer.json, pairedItem: { item: itemIndex } };

	if (this.getNodeParameter('download', itemIndex, false) as boolean) {
		const binaryPropertyName = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
		const { binary, fields } = await downloadRecording.call(this, callId, answer.url, policy);
		item.json = { ...item.json, ...fields };
		item.binary = { [binaryPropertyName]: binary };
	}
	return [item];
}

export const operation: OperationDeclaration = {
	value: 'get',
	name: 'Get',
	description: "Get a link to a call's recording, and the file if you want",
	action: 'Get a recording',
	api: GET_RECORDING,
	properties,
	execute,
};
