import type { IBinaryData, IDataObject, INode } from 'n8n-workflow';

import type { RequestContext, RunContext } from './context';
import type { ApiOperation, RequestPolicy } from './transport';
import { apiRequest, getConnectionSettings, pause } from './transport';
import type { NodeError } from './errors';
import { MAINTAINERS, answerError, operationError, serverMessage } from './errors';
import { downloadSignedFile } from './transport/download';
import { isJsonObject } from './context';
import { readAnswer } from './recordingAnswer';
import type { RecordingFileFields } from './recordingFile';
import { fileFingerprint, hostFileName, recordingFileName } from './recordingFile';

/**
 * What the API answered about a call's recording, told apart in one place (the body is read by
 * `readAnswer`, recordingAnswer.ts, which gives the rule):
 * - `ready`: a download URL (in the JSON body, or as a redirect);
 * - `processing`: the service says it is still working on it (202, `status: "processing"`...);
 * - `unreadable`: nothing says "processing" but the node finds no link it can read (a "ready"
 *   status without a link, a page that is not JSON): waiting cannot help, so it fails;
 * - `notFound`: 404, naming the call or the recording when the service's message does. A
 *   missed call has no recording; some services also answer 404 until a recording is ready.
 */
export type RecordingAnswer =
	| { state: 'ready'; json: IDataObject; url: string }
	| { state: 'processing'; json: IDataObject; statusCode: number }
	| ({ state: 'unreadable'; json: IDataObject } & (
			{ kind: 'notJson' } | { kind: 'noLink'; said: string; fields: string[] }
	  ))
	| {
			state: 'notFound';
			json: IDataObject;
			missing: 'call' | 'recording' | undefined;
			said?: string;
	  };

/** What a 404's message names as missing: "Recording not found" or "Call not found". */
function missingFrom(said: string | undefined): 'call' | 'recording' | undefined {
	if (said === undefined) return undefined;
	if (/recording/i.test(said)) return 'recording';
	return /\bcall\b/i.test(said) ? 'call' : undefined;
}

/** Asking for a call's recording, for Get Recording and the trigger's downloads. */
export const GET_RECORDING: ApiOperation = {
	scope: 'recordings:read',
	action: 'fetch call recordings',
};

/** Asks the API for a call's recording. Shared by Get Recording and the trigger's downloads. */
export async function askForRecording(
	this: RequestContext,
	callId: string,
	policy: RequestPolicy,
): Promise<RecordingAnswer> {
	const path = `/v1/calls/${encodeURIComponent(callId)}/recording`;
	const response = await apiRequest.call(
		this,
		{ operation: GET_RECORDING, method: 'GET', path, acceptRedirect: true, answerStatuses: [404] },
		policy,
	);
	const location = response.headers.location;
	// A relative link ("/files/x.mp3") is relative to the address that was asked: the API's origin.
	const askedUrl = `${(await getConnectionSettings.call(this)).apiBase}${path}`;
	if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
		const url = new URL(location, askedUrl).toString();
		return { state: 'ready', json: { callId, url }, url };
	}
	const body = isJsonObject(response.body) ? response.body : {};
	const json = { ...body, callId };
	if (response.statusCode === 404) {
		const said = serverMessage(response);
		return { state: 'notFound', json: { callId }, missing: missingFrom(said), said };
	}
	const empty = response.raw.length === 0;
	const reading = readAnswer(response.statusCode, response.body, empty, askedUrl);
	if (reading.state === 'ready') return { state: 'ready', json, url: reading.url };
	if (reading.state === 'processing') {
		return { state: 'processing', json, statusCode: response.statusCode };
	}
	if (reading.state === 'none') {
		return { state: 'notFound', json, missing: 'recording', said: reading.said };
	}
	return { ...reading, json };
}

/** The error for an answer without a recording to fetch; it names the call and says why. */
export function noRecordingError(
	node: INode,
	callId: string,
	answer: Exclude<RecordingAnswer, { state: 'ready' }>,
	itemIndex?: number,
): NodeError {
	if (answer.state === 'unreadable' && answer.kind === 'notJson') {
		// Not a JSON object (an HTML page, cut-off JSON): nothing says it is being processed.
		return operationError(
			node,
			`The service's answer for the recording of call "${callId}" could not be read: run it again later; if it keeps failing, check the credential's Base URL`,
			{ itemIndex },
		);
	}
	if (answer.state === 'unreadable') {
		// Says it is done (or something the node does not know) without a link: waiting cannot help.
		return operationError(
			node,
			`The service's answer for the recording of call "${callId}" has no link the node can read (${answer.said}; its fields: ${answer.fields.join(', ')}): check the credential's Base URL; if it is right, report this message to ${MAINTAINERS}`,
			{
				itemIndex,
				description:
					'The node reads the link from fields such as url or audio_url, as a full address or a path starting with /, and waits only while the service says the recording is being processed.',
			},
		);
	}
	if (answer.state === 'processing') {
		const status =
			typeof answer.json.status === 'string' ? ` (status "${answer.json.status}")` : '';
		return operationError(
			node,
			`The recording of call "${callId}" is still being processed${status}: run it again in a few minutes, or set Options › Wait for Recording`,
			{ itemIndex, description: 'A recording is usually ready a minute or two after its call.' },
		);
	}
	const message =
		answer.missing === 'call'
			? `No call with ID "${callId}" (404): check the call ID`
			: answer.missing === 'recording'
				? `Call "${callId}" has no recording (404): missed calls have none; for new calls, use the trigger with Download Recording`
				: `No call with ID "${callId}", or it has no recording (404): check the call ID; missed calls have no recording`;
	const said = answer.said ? ` The server said: ${answer.said}` : '';
	return answerError(node, 404, message, {
		description: `Missed calls have no recording. A call that ended moments ago may not have one yet.${said}`,
		itemIndex,
	});
}

/** The longest pause between two questions while waiting for a recording. */
const MAX_RECHECK_MS = 30_000;

/**
 * Asks until the recording is ready, for at most `waitMs`: again after 2, 4, 8... s (at most
 * 30 s apart), each question paced like every request. Waits only on `processing` answers: a
 * 404 usually means there is no recording (a missed call), and waiting for it costs the wait.
 */
export async function askUntilReady(
	this: RequestContext,
	callId: string,
	policy: RequestPolicy,
	waitMs: number,
): Promise<RecordingAnswer> {
	const until = Date.now() + waitMs;
	for (let pauseMs = 2000; ; pauseMs = Math.min(pauseMs * 2, MAX_RECHECK_MS)) {
		const answer = await askForRecording.call(this, callId, policy);
		const left = until - Date.now();
		if (answer.state !== 'processing' || left <= 0) return answer;
		await pause.call(this, Math.min(pauseMs, left));
	}
}

/** A downloaded recording: the file in n8n's binary data store, and the item's fields about it. */
export interface DownloadedRecording {
	binary: IBinaryData;
	fields: RecordingFileFields;
}

/** Downloads the recording at `signedUrl` into n8n's binary data store, named after its call. */
export async function downloadRecording(
	this: RunContext,
	callId: string,
	signedUrl: string,
	policy: RequestPolicy,
): Promise<DownloadedRecording> {
	let url = signedUrl;
	let hostName: string | undefined;
	const binary = await downloadSignedFile.call(this, {
		url: () => url,
		// Signed URLs expire: when the file host refuses one, ask the API for a fresh URL once.
		refreshUrl: async () => {
			const fresh = await askForRecording.call(this, callId, policy);
			if (fresh.state === 'ready') url = fresh.url;
		},
		store: async (file) => {
			hostName = hostFileName(url, file.contentDisposition);
			const fileName = recordingFileName(callId, file.contentType, hostName);
			return await this.helpers.prepareBinaryData(file.stream as never, fileName, file.contentType);
		},
		policy,
	});
	const fields: RecordingFileFields = {
		fileName: binary.fileName ?? recordingFileName(callId, binary.mimeType, hostName),
		...(hostName === undefined ? {} : { hostFileName: hostName }),
		...(await fileFingerprint.call(this, binary)),
	};
	return { binary, fields };
}
