/**
 * GET /v1/calls/{id}/recording: hands out a short-lived signed URL on the separate file origin
 * (as S3/GCS presigned URLs do), so the node has to fetch it without its API key.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'crypto';
import { detail, json, Reply } from './http';
import type { EmulatorServer } from './server';
import { RecordingFileNames } from './types';

/** Lifetime of signed recording URLs. */
const URL_TTL_MS = 15 * 60_000;

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

const PATHS: Record<RecordingFileNames, string> = {
	'by-call': '.mp3',
	same: '/recording.mp3',
	content: '/content',
};

/** The call a file-origin path names, in any of the three forms; undefined for any other path. */
export function callIdOfRecordingPath(path: string): string | undefined {
	const match = /^\/recordings\/([^/]+?)(?:\.mp3|\/recording\.mp3|\/content)$/.exec(path);
	try {
		return match ? decodeURIComponent(match[1]) : undefined;
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

export function getRecording(emu: EmulatorServer, encodedId: string): Reply {
	let callId: string;
	try {
		callId = decodeURIComponent(encodedId);
	} catch {
		return detail(404, 'Call not found');
	}
	const call = emu.callStore.find(callId);
	if (!call) return detail(404, 'Call not found');
	if (!call.has_recording) return detail(404, 'Recording not found');
	if (emu.callStore.recordingPending(call, Date.now())) {
		// Processing: Bandwidth-like status without a media URL, a 202, or the missed call's 404.
		const { pendingAnswer } = emu.processing;
		if (pendingAnswer === '404') return detail(404, 'Recording not found');
		const processing = { call_id: callId, status: 'processing' };
		return pendingAnswer === '202'
			? json(202, processing)
			: json(200, { ...processing, url: null });
	}
	const expires = Math.ceil((Date.now() + URL_TTL_MS) / 1000);
	const path = `/recordings/${encodeURIComponent(callId)}${PATHS[emu.files.recordingFileNames]}`;
	const query = `expires=${expires}&signature=${emu.signer.sign(callId, expires)}`;
	const { recordingUrlField, recordingUrlForm, recordingReadyStatus } = emu.files;
	const origin = recordingUrlForm === 'relative' ? '' : emu.fileBaseUrl;
	return json(200, {
		call_id: callId,
		status: recordingReadyStatus,
		[recordingUrlField]: `${origin}${path}?${query}`,
		expires_at: new Date(expires * 1000).toISOString(),
		content_type: emu.files.recordingContentType,
		size_bytes: emu.opts.recordingBytes,
		duration_seconds: call.duration_seconds,
	});
}
