import type { IDataObject } from 'n8n-workflow';

import type { AnswerReading } from '../../nodes/shared/recordingAnswer';
import { readAnswer } from '../../nodes/shared/recordingAnswer';

// How a 2xx answer about a recording reads (the rule: readAnswer). "processing" makes Get Recording
// say "try later" and the trigger hold the call for up to a day: only an answer that says so may.
const ASKED = 'https://api.example.com/v1/calls/call_1/recording';
const SIGNED = 'https://files.example.net/r/call_1.mp3?sig=abc';
const ready = (url: string): AnswerReading => ({ state: 'ready', url });
const processing: AnswerReading = { state: 'processing' };
const noLink = (said: string, fields: string[]): AnswerReading => ({
	state: 'unreadable',
	kind: 'noLink',
	said,
	fields,
});

/** A row: what the answer is, its body, how it reads; or its status code and body (processing). */
type Reading = [string, unknown, AnswerReading];
type Waiting = [string, number, unknown];

describe('readAnswer', () => {
	test.each<Reading>([
		['url', { status: 'completed', url: SIGNED }, ready(SIGNED)],
		// The link's field names of APIs of this kind.
		...[
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
			'recording',
		].map((key): Reading => [key, { [key]: SIGNED }, ready(SIGNED)]),
		['nested under data', { data: { audio_url: SIGNED } }, ready(SIGNED)],
		['nested under recording', { recording: { file_url: SIGNED } }, ready(SIGNED)],
		[
			'a path on the API',
			{ url: '/files/x.mp3?sig=1' },
			ready('https://api.example.com/files/x.mp3?sig=1'),
		],
		['a readable link after one that is not', { link: 'rec_1', audio_url: SIGNED }, ready(SIGNED)],
		['a link with status "processing"', { status: 'processing', url: SIGNED }, ready(SIGNED)],
	])('a link: %s', (_, body, expected) => {
		expect(readAnswer(200, body, false, ASKED)).toEqual(expected);
	});

	test.each<Waiting>([
		['202', 202, { status: 'processing' }],
		['202 even with a link', 202, { url: SIGNED }],
		['status "processing", url null', 200, { status: 'processing', url: null }],
		...['pending', 'queued', 'In Progress', 'in-progress', 'transcoding', 'uploading'].map(
			(word): Waiting => [`status "${word}"`, 200, { status: word }],
		),
		['state "queued" under data', 200, { data: { state: 'queued' } }],
		// Named when Wait for Recording ends; failing would stop the trigger at this one call.
		['a status the node does not know', 200, { status: 'transcribing' }],
		['no status and no link', 200, { call_id: 'call_1' }],
		['an empty object', 200, {}],
		['a word that is no link, without a status', 200, { location: 'eu-west-1' }],
	])('processing: %s', (_, statusCode, body) => {
		expect(readAnswer(statusCode, body, false, ASKED)).toEqual(processing);
	});

	test('processing: an empty answer', () => {
		expect(readAnswer(204, undefined, true, ASKED)).toEqual(processing);
	});

	test.each<Reading>([
		...['ready', 'completed', 'available', 'done', 'finished', 'success'].map((word): Reading => [
			`status "${word}" without a link`,
			{ status: word, media: 'x' },
			noLink(`status "${word}"`, ['status', 'media']),
		]),
		[
			'a path without a leading slash',
			{ url: 'files/x.mp3' },
			noLink('url "files/x.mp3"', ['url']),
		],
		[
			'another scheme, nested',
			{ recording: { status: 'ready', link: 's3://bucket/x.mp3' } },
			noLink('link "s3://bucket/x.mp3"', ['recording', 'recording.status', 'recording.link']),
		],
	])('unreadable: %s', (_, body, expected) => {
		expect(readAnswer(200, body, false, ASKED)).toEqual(expected);
	});

	test.each(['absent', 'failed', 'Deleted', 'no-recording'])(
		'none: status "%s" says there is no recording',
		(word) => {
			expect(readAnswer(200, { status: word }, false, ASKED)).toEqual({
				state: 'none',
				said: `status "${word}"`,
			});
		},
	);

	// One call's glitch must not stop the trigger, which fails its check on an unreadable answer.
	test.each<[string, IDataObject, string]>([
		['url null', { status: 'ready', url: null }, 'status "ready", url empty'],
		[
			'under data',
			{ data: { state: 'completed', audio_url: '' } },
			'state "completed", audio_url empty',
		],
	])('none: a done status with the link field empty (%s)', (_, body, said) => {
		expect(readAnswer(200, body, false, ASKED)).toEqual({ state: 'none', said });
	});

	test('unreadable: a body that is not JSON', () => {
		expect(readAnswer(200, undefined, false, ASKED)).toEqual({
			state: 'unreadable',
			kind: 'notJson',
		});
	});
});
