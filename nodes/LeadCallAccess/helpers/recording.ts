import type { IDataObject } from 'n8n-workflow';

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

export function signedUrlOf(body: IDataObject): string | undefined {
	for (const source of [body, body.data, body.recording]) {
		if (typeof source !== 'object' || source === null || Array.isArray(source)) continue;
		for (const key of URL_KEYS) {
			const value = (source as IDataObject)[key];
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

function safeFileName(name: string): string {
	return name.replace(/[/\\?%*:|"<>\u0000-\u001f]/g, '_').slice(0, 200);
}

/** The server's file name when it gives one, else the URL's, else `<callId>.<extension>`. */
export function recordingFileName(
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
