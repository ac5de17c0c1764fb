import { createHash } from 'crypto';
import type { IBinaryData, IDataObject } from 'n8n-workflow';

import type { RunContext } from './context';

/**
 * What a downloaded recording is called and what it holds. Recording hosts often give every
 * file the same name (`recording.wav`, `.../content`), so the file is named after its call; the
 * host's own name is kept in the item, and the item carries the stored file's size and SHA-256
 * so an archive can be checked.
 */

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
	return plain?.[1].trim() || undefined;
}

/** The host's name for the file: its Content-Disposition, else the last part of its address. */
export function hostFileName(
	url: string,
	contentDisposition: string | undefined,
): string | undefined {
	const fromHeader = fileNameFromDisposition(contentDisposition);
	if (fromHeader) return fromHeader;
	try {
		return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || undefined;
	} catch {
		return undefined;
	}
}

/**
 * A call ID as a file name: path separators, characters Windows forbids, control characters
 * and `%` are written as `%` and their code, so two different IDs never give the same name.
 */
function fileNameOfId(callId: string): string {
	const unsafe = (char: string) => char < ' ' || '/\\?%*:|"<>'.includes(char);
	const hex = (char: string) =>
		`%${char.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`;
	return Array.from(callId, (char) => (unsafe(char) ? hex(char) : char)).join('');
}

/** `<call id>.<extension>`: the extension from the content type, else the host's name, else `bin`. */
export function recordingFileName(
	callId: string,
	contentType: string | undefined,
	hostName: string | undefined,
): string {
	const fromHost = /\.([a-z0-9]{2,5})$/i.exec(hostName ?? '')?.[1].toLowerCase();
	const extension = EXTENSIONS[(contentType ?? '').toLowerCase()] ?? fromHost ?? 'bin';
	return `${fileNameOfId(callId)}.${extension}`;
}

/**
 * The stored file's size in bytes and SHA-256, read back from n8n's binary data store (on disk
 * or in the database) or from memory (n8n 1.x's default): what the archive will hold.
 */
export async function fileFingerprint(
	this: RunContext,
	binary: IBinaryData,
): Promise<{ fileSize: number; sha256: string }> {
	const hash = createHash('sha256');
	let fileSize = 0;
	if (binary.id) {
		for await (const chunk of await this.helpers.getBinaryStream(binary.id)) {
			const bytes = chunk as Buffer;
			hash.update(bytes);
			fileSize += bytes.length;
		}
	} else {
		const bytes = Buffer.from(binary.data, 'base64');
		hash.update(bytes);
		fileSize = bytes.length;
	}
	return { fileSize, sha256: hash.digest('hex') };
}

/** The item fields of a downloaded recording: its file name, the host's name, size and SHA-256. */
export type RecordingFileFields = IDataObject & {
	fileName: string;
	hostFileName?: string;
	fileSize: number;
	sha256: string;
};
