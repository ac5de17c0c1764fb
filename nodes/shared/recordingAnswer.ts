import type { IDataObject } from 'n8n-workflow';

import { isJsonObject } from './context';

/**
 * Reading the body of the API's answer about a call's recording. The spec shows neither the
 * answer nor how a recording still being processed is reported, so the node reads every
 * plausible form, and when it cannot tell, says so instead of guessing (the rule is `readAnswer`).
 */

/**
 * Field names under which APIs of this kind give the recording's link, looked for at the top of
 * the answer, then under `data`, then under `recording`.
 */
const LINK_KEYS = [
	'url',
	'signed_url',
	'signedUrl',
	'recording_url',
	'recordingUrl',
	'download_url',
	'downloadUrl',
	'audio_url',
	'audioUrl',
	'file_url',
	'fileUrl',
	'media_url',
	'mediaUrl',
	'href',
	'link',
	'location',
	// Only when it is text: an object under `recording` is searched for the fields above instead.
	'recording',
];

/** Where a status word may be: the common names, in the same places as the link. */
const STATUS_KEYS = ['status', 'state'];

/**
 * Status words that say the recording is done. Without a link the node can read, waiting cannot
 * help: the answer is reported instead.
 */
const DONE_WORDS = [
	'ready',
	'completed',
	'complete',
	'available',
	'done',
	'finished',
	'success',
	'succeeded',
];

/**
 * Status words that say there is no recording and will be none (Twilio's `absent`, `failed`,
 * `deleted`): read as a 404 "no recording" is, so one such call never blocks the others.
 */
const NO_RECORDING_WORDS = [
	'absent',
	'none',
	'no_recording',
	'missing',
	'failed',
	'error',
	'deleted',
	'unavailable',
	'not_found',
	'cancelled',
	'canceled',
];

/**
 * - `ready`: the link to fetch, as a full address;
 * - `processing`: the service says it is still working on the recording, or nothing else;
 * - `none`: the service says the call has no recording;
 * - `unreadable`: nothing says "processing", yet the node finds no link it can read: `notJson`
 *   (an HTML page, cut-off JSON), or `noLink`, with what the answer said instead and its fields.
 */
export type AnswerReading =
	| { state: 'ready'; url: string }
	| { state: 'processing' }
	| { state: 'none'; said: string }
	| { state: 'unreadable'; kind: 'notJson' }
	| { state: 'unreadable'; kind: 'noLink'; said: string; fields: string[] };

/** The answer itself, then the objects under `data` and `recording`. */
function sourcesOf(body: IDataObject): IDataObject[] {
	return [body, body.data, body.recording].filter(isJsonObject);
}

/** The first non-empty text under one of `keys` in the answer, with the field's name. */
function firstText(body: IDataObject, keys: string[], accept: (text: string) => boolean) {
	for (const source of sourcesOf(body)) {
		for (const key of keys) {
			const value = source[key];
			if (typeof value === 'string' && value.trim() !== '' && accept(value.trim())) {
				return { key, text: value.trim() };
			}
		}
	}
	return undefined;
}

/**
 * A link the node reads: a full http(s) address, or a path on the API's own origin (`/files/…`,
 * resolved like a redirect's Location). A path without a leading slash (`files/x.mp3`) is not
 * read: relative to the request's address or to the Base URL, it would be a guess.
 */
const isReadableLink = (text: string): boolean =>
	/^https?:\/\//i.test(text) || text.startsWith('/');

/** Text that is meant as a link the node cannot read (`files/x.mp3`, `s3://bucket/x`). */
const looksLikeLink = (text: string): boolean => text.includes('/');

/** The first field named for the link whose value is null or empty text, if any. */
function emptyLinkField(body: IDataObject): string | undefined {
	for (const source of sourcesOf(body))
		for (const key of LINK_KEYS) if (source[key] === null || source[key] === '') return key;
	return undefined;
}

/** "In Progress", "in-progress" → "in_progress". */
const normalised = (word: string): string => word.toLowerCase().replace(/[\s-]+/g, '_');

/** The answer's field names, those under `data` and `recording` as `data.url`: for the message. */
function fieldNames(body: IDataObject): string[] {
	const nested = (name: string) =>
		isJsonObject(body[name]) ? Object.keys(body[name]).map((key) => `${name}.${key}`) : [];
	return [...Object.keys(body), ...nested('data'), ...nested('recording')].slice(0, 15);
}

/**
 * How a 2xx answer reads (a redirect and a 404 are read by the caller). `askedUrl` is the address
 * that was asked: a relative link is resolved against it, so it stays on the API's origin.
 * 1. 202 is "processing" by itself.
 * 2. A readable link is ready, whatever the status says.
 * 3. A status that says there is no recording is `none`; so is one that says done while the
 *    link's own field is empty (`url: null`): as after a 404, the trigger holds such a call a
 *    while and then delivers it without a file, and the checks go on.
 * 4. Unreadable, never "processing": a status that says done with no link field the node knows
 *    (the link may be under a name it does not read: every call would fail the same way), a link
 *    the node cannot read, a body that is not JSON. Waiting would hold the call for a day and
 *    then deliver it without its file.
 * 5. Anything else is processing: a status such as `processing`, `pending` or one the node does
 *    not know (waited for up to Wait for Recording, and named when the wait ends), or an empty
 *    answer or `{}`, which some services send until the recording is there.
 */
export function readAnswer(
	statusCode: number,
	body: unknown,
	empty: boolean,
	askedUrl: string,
): AnswerReading {
	if (statusCode === 202) return { state: 'processing' };
	if (!isJsonObject(body))
		return empty ? { state: 'processing' } : { state: 'unreadable', kind: 'notJson' };
	const link = firstText(body, LINK_KEYS, isReadableLink);
	if (link !== undefined && URL.canParse(link.text, askedUrl)) {
		return { state: 'ready', url: new URL(link.text, askedUrl).toString() };
	}
	const status = firstText(body, STATUS_KEYS, () => true);
	const word = status === undefined ? '' : normalised(status.text);
	const statusSaid = status && `${status.key} "${status.text}"`;
	if (statusSaid && NO_RECORDING_WORDS.includes(word)) return { state: 'none', said: statusSaid };
	const meant = link ?? firstText(body, LINK_KEYS, looksLikeLink);
	const done = DONE_WORDS.includes(word);
	if (meant === undefined && !done) return { state: 'processing' };
	const emptyLink = meant === undefined ? emptyLinkField(body) : undefined;
	if (emptyLink !== undefined) return { state: 'none', said: `${statusSaid}, ${emptyLink} empty` };
	const said = meant === undefined ? statusSaid! : `${meant.key} "${meant.text.slice(0, 100)}"`;
	return { state: 'unreadable', kind: 'noLink', said, fields: fieldNames(body) };
}
