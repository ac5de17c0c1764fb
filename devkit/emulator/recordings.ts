/**
 * GET /v1/calls/{id}/recording: hands out a short-lived signed URL on the separate file origin
 * (as S3/GCS presigned URLs do), so the node has to fetch it without its API key.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'crypto';
import { CallStore } from './calls';
import { detail, json, Reply } from './http';
import { PendingRecordingAnswer, RecordingFileNames, RecordingFiles } from './types';

export class UrlSigner {
	// Per-emulator secret: URLs from one emulator run are worthless in another.
	private readonly secret = randomBytes(32);

	sign(callId: string, expires: number): string {
		return createHmac('sha256', this.secret).update(`${callId}\n${expires}`).digest('hex');
	}

	verify(callId: string, expires: string, signature: string): boolean {
		if (!/^\d+$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return false;
		const expected = Buffer.from(this.sign(callId, Number(expires)), 'hex');
		return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
	}
}

export interface RecordingOptions {
	fileBaseUrl: string;
	ttlMs: number;
	sizeBytes: number;
	/** The answer while a recording is still being processed. */
	pendingAnswer: PendingRecordingAnswer;
	files: RecordingFiles;
}

/** The file's path on the file origin: named by call, or the same name in a folder per call. */
export function recordingPath(callId: string, names: RecordingFileNames = 'by-call'): string {
	const id = encodeURIComponent(callId);
	if (names === 'same') return `/recordings/${id}/recording.mp3`;
	if (names === 'content') return `/recordings/${id}/content`;
	return `/recordings/${id}.mp3`;
}

/** The call a file-origin path names, in any of the three forms; undefined for any other path. */
export function callIdOfRecordingPath(path: string): string | undefined {
	const match = /^\/recordings\/([^/]+?)(?:\.mp3|\/recording\.mp3|\/content)$/.exec(path);
	if (!match) return undefined;
	try {
		return decodeURIComponent(match[1]);
	} catch {
		return undefined;
	}
}

/** The Content-Disposition a file is served with, if any. */
export function recordingDisposition(
	callId: string,
	names: RecordingFileNames,
): string | undefined {
	if (names === 'content') return undefined;
	const name = names === 'same' ? 'recording' : callId.replace(/[^A-Za-z0-9._-]/g, '_');
	return `attachment; filename="${name}.mp3"`;
}

export function getRecording(
	store: CallStore,
	signer: UrlSigner,
	encodedId: string,
	opts: RecordingOptions,
): Reply {
	let callId: string;
	try {
		callId = decodeURIComponent(encodedId);
	} catch {
		return detail(404, 'Call not found');
	}
	const call = store.find(callId);
	if (!call) return detail(404, 'Call not found');
	if (!call.has_recording) return detail(404, 'Recording not found');
	if (store.recordingPending(call, Date.now())) {
		// Processing: Bandwidth-like status without a media URL, a 202, or the missed call's 404.
		if (opts.pendingAnswer === '404') return detail(404, 'Recording not found');
		const processing = { call_id: callId, status: 'processing' };
		return opts.pendingAnswer === '202'
			? json(202, processing)
			: json(200, { ...processing, url: null });
	}
	const expires = Math.ceil((Date.now() + opts.ttlMs) / 1000);
	const signature = signer.sign(callId, expires);
	return json(200, {
		call_id: callId,
		status: 'completed',
		url: `${opts.fileBaseUrl}${recordingPath(callId, opts.files.recordingFileNames)}?expires=${expires}&signature=${signature}`,
		expires_at: new Date(expires * 1000).toISOString(),
		content_type: opts.files.recordingContentType,
		size_bytes: opts.sizeBytes,
		duration_seconds: call.duration_seconds,
	});
}
