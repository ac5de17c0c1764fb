/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The second origin: serves recordings behind signed URLs, answering like S3 (XML errors,
 * `Authorization` header rejected). Files are generated on the fly and streamed chunk by chunk
 * with back-pressure, so a 200 MB recording costs one 64 KiB buffer, never 200 MB.
 */
import { createHash } from 'crypto';
import { IncomingMessage, ServerResponse } from 'http';
import { Reply, xml } from './http';
import { callIdOfRecordingPath, recordingDisposition } from './recordings';
import type { EmulatorServer } from './server';

const BLOCK_SIZE = 64 * 1024;
/** "ID3", version 2.4.0, no flags, tag size 0 (syncsafe). */
const ID3_HEADER = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);

/**
 * Deterministic content: an ID3v2.4 header, then a 64 KiB pseudo-random block (seeded by the
 * call id) repeated. Byte k of a file is the same in every run, so downloads can be checked.
 */
function recordingBlock(callId: string): Buffer {
	const block = Buffer.alloc(BLOCK_SIZE);
	let seed = createHash('sha256').update(callId).digest();
	for (let offset = 0; offset < BLOCK_SIZE; offset += seed.length) {
		seed.copy(block, offset);
		seed = createHash('sha256').update(seed).digest();
	}
	return block;
}

/** The first `n` bytes of a recording, as served (for tests; the server streams instead). */
export function recordingBytes(callId: string, n: number): Buffer {
	const block = recordingBlock(callId);
	const out = Buffer.alloc(n);
	for (let offset = 0; offset < n; offset += BLOCK_SIZE) block.copy(out, offset, 0, n - offset);
	ID3_HEADER.copy(out, 0, 0, Math.min(ID3_HEADER.length, n));
	return out;
}

/** Checks that run before any byte of the file is sent: the call's id, or the error answer. */
export function checkFile(
	req: IncomingMessage,
	query: Record<string, string>,
	path: string,
	emu: EmulatorServer,
): Reply | string {
	const noSuchKey = xml(404, 'NoSuchKey', 'The specified key does not exist.');
	if (req.headers.authorization !== undefined)
		return xml(400, 'InvalidArgument', 'Only one auth mechanism allowed');
	const callId = callIdOfRecordingPath(path);
	if (callId === undefined) return noSuchKey;
	const { expires = '', signature = '' } = query;
	if (!emu.signer.verify(callId, expires, signature)) {
		const message =
			'The request signature we calculated does not match the signature you provided.';
		return xml(403, 'SignatureDoesNotMatch', message);
	}
	if (emu.faults.signedUrlsExpired || Number(expires) * 1000 <= Date.now())
		return xml(403, 'AccessDenied', 'Request has expired');
	return emu.callStore.find(callId)?.has_recording ? callId : noSuchKey;
}

/**
 * Streams the file. With `truncate`, the headers announce the full length but only half the
 * bytes are sent before the connection is cut.
 */
export async function serveFile(
	req: IncomingMessage,
	res: ServerResponse,
	callId: string,
	emu: EmulatorServer,
	truncate: boolean,
) {
	const size = emu.opts.recordingBytes;
	const disposition = recordingDisposition(callId, emu.files.recordingFileNames);
	res.writeHead(200, {
		'Content-Type': emu.files.recordingContentType,
		'Content-Length': String(size),
		...(disposition ? { 'Content-Disposition': disposition } : {}),
		'Cache-Control': 'private, max-age=0',
	});
	const block = recordingBlock(callId);
	const first = Buffer.from(block);
	ID3_HEADER.copy(first);
	const writable = () =>
		new Promise<void>((resolve) => {
			const done = (): void => {
				res.off('drain', done).off('close', done);
				resolve();
			};
			res.on('drain', done).on('close', done);
		});
	const stopAt = truncate ? Math.floor(size / 2) : size;
	for (let sent = 0; sent < stopAt && !res.destroyed; sent += BLOCK_SIZE) {
		const chunk = (sent === 0 ? first : block).subarray(0, stopAt - sent);
		if (truncate && sent + BLOCK_SIZE >= stopAt) {
			// Let the last bytes reach the client before the connection is cut mid-body.
			await new Promise((resolve) => res.once('close', resolve).write(chunk, resolve));
		} else if (!res.write(chunk)) await writable();
	}
	if (truncate) req.socket.destroy();
	else res.end();
}
