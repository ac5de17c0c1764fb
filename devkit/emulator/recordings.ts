/**
 * GET /v1/calls/{id}/recording: hands out a short-lived signed URL on the separate file origin
 * (as S3/GCS presigned URLs do), so the node has to fetch it without its API key.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'crypto';
import { CallStore } from './calls';
import { detail, json, Reply } from './http';
import { PendingRecordingAnswer } from './types';

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
}

export function recordingPath(callId: string): string {
	return `/recordings/${encodeURIComponent(callId)}.mp3`;
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
		url: `${opts.fileBaseUrl}${recordingPath(callId)}?expires=${expires}&signature=${signature}`,
		expires_at: new Date(expires * 1000).toISOString(),
		content_type: 'audio/mpeg',
		size_bytes: opts.sizeBytes,
		duration_seconds: call.duration_seconds,
	});
}
