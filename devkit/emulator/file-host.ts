/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The second origin: serves recordings behind signed URLs, answering like S3 (XML errors,
 * `Authorization` header rejected). Files are generated on the fly and streamed chunk by chunk
 * with back-pressure, so a 200 MB recording costs one 64 KiB buffer, never 200 MB.
 */
import { createHash } from 'crypto';
import { IncomingMessage, ServerResponse } from 'http';
import { CallStore } from './calls';
import { FaultQueue, statusFaultReply } from './faults';
import { queryRecord, Reply, resetSocket, sendReply, xml } from './http';
import { Recorder } from './recorder';
import { callIdOfRecordingPath, recordingDisposition, UrlSigner } from './recordings';
import { RecordingFiles } from './types';

const BLOCK_SIZE = 64 * 1024;

export interface FileHostDeps {
	store: CallStore;
	signer: UrlSigner;
	sizeBytes: number;
	/** How files are named and typed at the time of the request. */
	files: RecordingFiles;
	/** True while an 'expire-signed-urls' fault is active. */
	signedUrlsExpired: () => boolean;
}

/**
 * Deterministic content: an ID3v2.4 header, then a 64 KiB pseudo-random block (seeded by the
 * call id) repeated. Byte k of a file is the same in every run, so downloads can be checked.
 */
export function recordingBlock(callId: string): Buffer {
	const block = Buffer.alloc(BLOCK_SIZE);
	let seed = createHash('sha256').update(callId).digest();
	for (let offset = 0; offset < BLOCK_SIZE; offset += seed.length) {
		seed.copy(block, offset);
		seed = createHash('sha256').update(seed).digest();
	}
	return block;
}

/** "ID3", version 2.4.0, no flags, tag size 0 (syncsafe). */
const ID3_HEADER = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);

function withId3Header(block: Buffer): Buffer {
	const first = Buffer.from(block);
	ID3_HEADER.copy(first, 0, 0, Math.min(ID3_HEADER.length, first.length));
	return first;
}

/** The first `n` bytes of a recording, as served (for tests; the server streams instead). */
export function recordingBytes(callId: string, n: number): Buffer {
	const block = recordingBlock(callId);
	const out = Buffer.alloc(n);
	for (let offset = 0; offset < n; offset += BLOCK_SIZE) {
		block.copy(out, offset, 0, Math.min(BLOCK_SIZE, n - offset));
	}
	ID3_HEADER.copy(out, 0, 0, Math.min(ID3_HEADER.length, n));
	return out;
}

/** Checks that run before any byte of the file is sent; returns an error reply or undefined. */
function check(
	req: IncomingMessage,
	query: Record<string, string>,
	path: string,
	deps: FileHostDeps,
): Reply | string {
	if (req.headers.authorization !== undefined) {
		return xml(400, 'InvalidArgument', 'Only one auth mechanism allowed');
	}
	if (req.method !== 'GET' && req.method !== 'HEAD') {
		return xml(
			405,
			'MethodNotAllowed',
			'The specified method is not allowed against this resource.',
		);
	}
	const callId = callIdOfRecordingPath(path);
	if (callId === undefined) return xml(404, 'NoSuchKey', 'The specified key does not exist.');
	const { expires, signature } = query;
	if (expires === undefined || signature === undefined) {
		return xml(
			403,
			'AccessDenied',
			'Query-string authentication requires the Signature and Expires parameters',
		);
	}
	if (!deps.signer.verify(callId, expires, signature)) {
		return xml(
			403,
			'SignatureDoesNotMatch',
			'The request signature we calculated does not match the signature you provided.',
		);
	}
	if (deps.signedUrlsExpired() || Number(expires) * 1000 <= Date.now()) {
		return xml(403, 'AccessDenied', 'Request has expired');
	}
	const call = deps.store.find(callId);
	if (!call || !call.has_recording)
		return xml(404, 'NoSuchKey', 'The specified key does not exist.');
	return callId;
}

/** Resolves when the response can take more data, or has been closed by either side. */
function writable(res: ServerResponse): Promise<void> {
	return new Promise((resolve) => {
		const done = (): void => {
			res.off('drain', done);
			res.off('close', done);
			resolve();
		};
		res.on('drain', done);
		res.on('close', done);
	});
}

function writeAndFlush(res: ServerResponse, chunk: Buffer): Promise<void> {
	return new Promise((resolve) => {
		res.once('close', () => resolve());
		res.write(chunk, () => resolve());
	});
}

/**
 * Serves one file-origin request; `onStatus` is told the status as soon as headers go out (so a
 * test sees it while a long body still streams). With `truncate`, the headers announce the full
 * length but only half the bytes are sent before the connection is cut.
 */
async function serveFile(
	req: IncomingMessage,
	res: ServerResponse,
	path: string,
	query: Record<string, string>,
	deps: FileHostDeps,
	truncate: boolean,
	onStatus: (status: number) => void,
): Promise<void> {
	const checked = check(req, query, path, deps);
	if (typeof checked !== 'string') {
		sendReply(res, checked, req.method === 'HEAD');
		onStatus(checked.status);
		return;
	}
	const callId = checked;
	const disposition = recordingDisposition(callId, deps.files.recordingFileNames);
	res.writeHead(200, {
		'Content-Type': deps.files.recordingContentType,
		'Content-Length': String(deps.sizeBytes),
		...(disposition ? { 'Content-Disposition': disposition } : {}),
		'Cache-Control': 'private, max-age=0',
	});
	onStatus(200);
	if (req.method === 'HEAD') {
		res.end();
		return;
	}

	const block = recordingBlock(callId);
	const first = withId3Header(block);
	const stopAt = truncate ? Math.floor(deps.sizeBytes / 2) : deps.sizeBytes;
	let sent = 0;
	while (sent < stopAt && !res.destroyed) {
		const size = Math.min(BLOCK_SIZE, stopAt - sent);
		const chunk = (sent === 0 ? first : block).subarray(0, size);
		sent += size;
		if (truncate && sent === stopAt) {
			// Let the last bytes reach the client before the connection is cut mid-body.
			await writeAndFlush(res, chunk);
		} else if (!res.write(chunk)) {
			await writable(res);
		}
	}
	if (truncate) req.socket.destroy();
	else res.end();
}

/** One file-origin request: recorded, then an injected fault or the file. */
export async function handleFileRequest(
	req: IncomingMessage,
	res: ServerResponse,
	recorder: Recorder,
	faults: FaultQueue,
	deps: FileHostDeps,
): Promise<void> {
	const url = new URL(req.url ?? '/', 'http://files');
	const method = req.method ?? 'GET';
	const query = queryRecord(url.searchParams);
	const record = recorder.begin('files', req, url.pathname, query);
	const fault = faults.take('files', method, url.pathname);
	if (fault) record.fault = fault.kind;
	if (fault?.kind === 'reset') {
		recorder.finish(record, 'reset');
		resetSocket(req);
		return;
	}
	req.resume(); // GET: nothing to read, but drain whatever was sent
	if (fault?.kind === 'hang') return recorder.finish(record, 'hang');
	if (fault?.kind === 'status') {
		const reply = statusFaultReply(fault);
		sendReply(res, reply, method === 'HEAD');
		return recorder.finish(record, reply.status);
	}
	const truncate = fault?.kind === 'truncate';
	await serveFile(req, res, url.pathname, query, deps, truncate, (status) =>
		recorder.finish(record, status),
	);
}
