import type { IBinaryData, IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ApiContext, RequestPolicy } from './transport';
import { apiRequest, getConnectionSettings } from './transport';
import type { SignedDownload } from './transport/download';
import { downloadSignedFile } from './transport/download';
import { isJsonObject } from './json';

/** Field names under which APIs of this kind return a signed download URL (the spec does not show it). */
const URL_KEYS = [
	'url',
	'signed_url',
	'signedUrl',
	'recording_url',
	'recordingUrl',
	'download_url',
	'downloadUrl',
	'href',
];

function isHttpUrl(value: unknown): value is string {
	return typeof value === 'string' && /^https?:\/\//i.test(value.trim());
}

function signedUrlOf(body: IDataObject): string | undefined {
	for (const source of [body, body.data, body.recording]) {
		if (!isJsonObject(source)) continue;
		for (const key of URL_KEYS) {
			const value = source[key];
			if (isHttpUrl(value)) return value.trim();
		}
	}
	return undefined;
}

const EXTENSIONS: Record<string, string> = {
	'audio/mpeg': 'mp3',
	'audio/mp3': 'mp3',
	'audio/wav': 'wav',
	'audio/x-wav': 'wav',
	'audio/wave': 'wav',
	'audio/ogg': 'ogg',
	'audio/webm': 'webm',
	'audio/mp4': 'm4a',
	'audio/x-m4a': 'm4a',
	'audio/aac': 'aac',
	'audio/flac': 'flac',
};

/** `attachment; filename="x.mp3"` or RFC 5987 `filename*=UTF-8''x.mp3`. */
function fileNameFromDisposition(disposition: string | undefined): string | undefined {
	if (!disposition) return undefined;
	const extended = /filename\*\s*=\s*[^']*'[^']*'([^;]+)/i.exec(disposition);
	if (extended) {
		try {
			return decodeURIComponent(extended[1].trim());
		} catch {
			// fall through to the plain form
		}
	}
	const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
	return plain?.[1].trim();
}

/**
 * Replaces path separators, characters Windows forbids and control characters. Not n8n-workflow's
 * sanitizeFilename: n8n 1.123.0 (n8n-workflow 1.120.0) does not have it yet.
 */
function safeFileName(name: string): string {
	const unsafe = (char: string) => char < ' ' || '/\\?%*:|"<>'.includes(char);
	return Array.from(name, (char) => (unsafe(char) ? '_' : char))
		.join('')
		.slice(0, 200);
}

/** The server's file name when it gives one, else the URL's, else `<callId>.<extension>`. */
function recordingFileName(
	callId: string,
	url: string,
	contentType: string | undefined,
	contentDisposition: string | undefined,
): string {
	const fromHeader = fileNameFromDisposition(contentDisposition);
	if (fromHeader) return safeFileName(fromHeader);
	let fromUrl: string | undefined;
	try {
		fromUrl = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
	} catch {
		fromUrl = undefined;
	}
	if (fromUrl && /\.[a-z0-9]{2,5}$/i.test(fromUrl)) return safeFileName(fromUrl);
	const extension = EXTENSIONS[(contentType ?? '').toLowerCase()] ?? 'bin';
	return safeFileName(`${callId}.${extension}`);
}

/** The message names the call; what the server said stays in the description only. */
function notFound(node: INode, callId: string, error: NodeApiError): NodeApiError {
	return new NodeApiError(node, { status: 404 } as JsonObject, {
		message: `No call with ID "${callId}", or it has no recording (404)`,
		description: error.description ?? undefined,
		httpCode: '404',
	});
}

export interface RecordingInfo {
	/** What the API said about the recording, with `callId` added. */
	json: IDataObject;
	/** The signed download URL, when the answer holds one. */
	url?: string;
}

/**
 * Asks the API for a call's recording: usually JSON with a signed URL, sometimes a redirect
 * to it. Shared by the Get Recording operation and the trigger's "Download Recording" option.
 */
export async function fetchRecordingInfo(
	this: ApiContext,
	callId: string,
	policy: RequestPolicy,
): Promise<RecordingInfo> {
	const path = `/v1/calls/${encodeURIComponent(callId)}/recording`;
	let response;
	try {
		response = await apiRequest.call(
			this,
			{ operation: 'getRecording', method: 'GET', path, acceptRedirect: true },
			policy,
		);
	} catch (error) {
		throw error instanceof NodeApiError && error.httpCode === '404'
			? notFound(this.getNode(), callId, error)
			: error;
	}
	const location = response.headers.location;
	if (response.statusCode >= 300 && typeof location === 'string') {
		// A relative Location ("/files/x.mp3") is relative to the address that was asked.
		const { apiBase } = await getConnectionSettings.call(this);
		const url = new URL(location, `${apiBase}${path}`).toString();
		return { json: { callId, url }, url };
	}
	const body = isJsonObject(response.body) ? response.body : {};
	return { json: { ...body, callId }, url: signedUrlOf(body) };
}

/** Downloads the recording `info` points to into n8n's binary data store. */
export async function downloadRecording(
	this: ApiContext,
	callId: string,
	info: RecordingInfo,
	policy: RequestPolicy,
): Promise<IBinaryData> {
	if (info.url === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`The recording answer for call ${callId} holds no download URL (fields: ${Object.keys(info.json).join(', ')})`,
		);
	}
	let url = info.url;
	return await downloadSignedFile.call<
		ApiContext,
		[SignedDownload<IBinaryData>],
		Promise<IBinaryData>
	>(this, {
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
}
