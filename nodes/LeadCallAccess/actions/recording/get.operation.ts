import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { recordingFileName, signedUrlOf } from '../../helpers/recording';
import type { RequestPolicy } from '../../transport';
import { apiRequest } from '../../transport';
import type { SignedDownload } from '../../transport/download';
import { downloadSignedFile } from '../../transport/download';
import { readRequestPolicy, requestOptionFields } from '../requestOptions';

const properties: INodeProperties[] = [
	{
		displayName: 'Call ID',
		name: 'callId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. call_000120',
		description:
			'ID of the call whose recording to fetch, as returned by List Calls (its "id" field)',
	},
	{
		displayName: 'Download',
		name: 'download',
		type: 'boolean',
		default: false,
		description:
			'Whether to also download the recording file and attach it to the item as binary data. Off: the item only holds the signed URL, which expires.',
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
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...requestOptionFields],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['recording'], operation: ['get'] } },
	properties,
);

/** Asks the API for the recording: usually JSON with a signed URL, sometimes a redirect to it. */
async function fetchRecordingInfo(
	this: IExecuteFunctions,
	callId: string,
	policy: RequestPolicy,
): Promise<{ json: IDataObject; url?: string }> {
	const response = await apiRequest.call(
		this,
		{
			operation: 'getRecording',
			method: 'GET',
			path: `/v1/calls/${encodeURIComponent(callId)}/recording`,
			acceptRedirect: true,
		},
		policy,
	);
	const location = response.headers.location;
	if (response.statusCode >= 300 && typeof location === 'string') {
		return { json: { callId, url: location }, url: location };
	}
	const body =
		typeof response.body === 'object' && response.body !== null && !Array.isArray(response.body)
			? (response.body as IDataObject)
			: {};
	return { json: { ...body, callId }, url: signedUrlOf(body) };
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
	const policy = readRequestPolicy.call(this, itemIndex);
	const info = await fetchRecordingInfo.call(this, callId, policy);
	const item: INodeExecutionData = { json: info.json, pairedItem: { item: itemIndex } };

	if (this.getNodeParameter('download', itemIndex, false) as boolean) {
		const binaryPropertyName = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
		if (info.url === undefined) {
			throw new NodeOperationError(
				this.getNode(),
				`The recording answer for call ${callId} holds no download URL (fields: ${Object.keys(info.json).join(', ')})`,
				{ itemIndex },
			);
		}
		let url = info.url;
		const binary = await downloadSignedFile.call<IExecuteFunctions, [SignedDownload<IBinaryData>], Promise<IBinaryData>>(this, {
			url: () => url,
			// Signed URLs expire: when the file host refuses one, ask the API for a fresh URL once.
			refreshUrl: async () => {
				const fresh = await fetchRecordingInfo.call(this, callId, policy);
				url = fresh.url ?? url;
			},
			store: async (file) =>
				await this.helpers.prepareBinaryData(
					file.stream as never,
					recordingFileName(callId, url, file.contentType, file.contentDisposition),
					file.contentType,
				),
			policy,
		});
		item.binary = { [binaryPropertyName]: binary };
	}
	return [item];
}
