/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * A stand-in for Google Drive, which cannot be reached offline, answering n8n's own Google Drive
 * node (reached through ./tunnel.ts) with the Drive API v3's shapes, for the calls that node
 * makes to search, upload and update files:
 *
 * - `GET /drive/v3/files?q=…`: a search; `q` in Drive's query language (`name = '…'`,
 *   `name contains '…'`, `'<folder id>' in parents`, `mimeType = '…'` / `!=`, `trashed = false`,
 *   joined by `and`), answering `{ kind, files: [...] }` with the `fields` asked for;
 * - `POST /upload/drive/v3/files?uploadType=multipart` (metadata and bytes in one body) and
 *   `uploadType=resumable` (metadata, then the bytes PUT to the address in `Location`);
 * - `PATCH /upload/drive/v3/files/<id>?uploadType=media`: new bytes for a file;
 * - `PATCH /drive/v3/files/<id>`: new metadata (`addParents` included).
 *
 * Drive keeps files of the same name side by side, and so does this. Errors come in Drive's
 * `{ error: { code, message, errors } }`.
 */
import type { IncomingMessage, ServerResponse } from 'http';

import { GOOGLE_HOST, startGoogleTunnel } from './tunnel';

export interface DriveFile {
	id: string;
	name: string;
	/** The folder id the file is in. */
	folder: string;
	mimeType: string;
	bytes: Buffer;
}

export interface LocalDrive {
	/** The env n8n must start with to reach this stand-in (see ./tunnel.ts). */
	n8nEnv: Record<string, string>;
	/** Every file in Drive, in creation order. */
	readonly files: DriveFile[];
	/** The requests received, as `METHOD /path`, in order. */
	readonly requests: string[];
	/** After `after` more uploads, the next `count` (multipart or resumable) fail with 503, storing nothing. */
	failUploads(count: number, after?: number): void;
	/** Empties Drive and the request log. */
	clear(): void;
	stop(): Promise<void>;
}

const FOLDER_TYPE = 'application/vnd.google-apps.folder';

/** One clause of Drive's query language, as a test on a file; undefined when not understood. */
function clause(text: string): ((file: DriveFile) => boolean) | undefined {
	const quoted = `'((?:\\\\.|[^'\\\\])*)'`;
	const unescape = (value: string) => value.replace(/\\(.)/g, '$1');
	const field = new RegExp(`^(name|mimeType) (=|!=|contains) ${quoted}$`).exec(text);
	if (field) {
		const [, key, operator, raw] = field;
		const value = unescape(raw);
		const of = (file: DriveFile) => (key === 'name' ? file.name : file.mimeType);
		if (operator === 'contains') return (file) => of(file).includes(value);
		return (file) => (of(file) === value) === (operator === '=');
	}
	const parent = new RegExp(`^${quoted} in parents$`).exec(text);
	if (parent) return (file) => file.folder === unescape(parent[1]);
	if (text === 'trashed = false') return () => true;
	return undefined;
}

/** Splits `q` on ` and ` outside quotes; undefined when a clause is not understood. */
function query(q: string): ((file: DriveFile) => boolean) | undefined {
	const clauses: string[] = [];
	let current = '';
	let quoted = false;
	for (let i = 0; i < q.length; i++) {
		if (q[i] === '\\' && quoted) current += q[i++];
		else if (q[i] === "'") quoted = !quoted;
		else if (!quoted && q.startsWith(' and ', i)) {
			clauses.push(current.trim());
			current = '';
			i += 4;
			continue;
		}
		current += q[i];
	}
	clauses.push(current.trim());
	const tests = clauses.filter(Boolean).map(clause);
	if (tests.some((test) => test === undefined)) return undefined;
	return (file) => tests.every((test) => test!(file));
}

/** A file as Drive answers, with only `fields` (Drive's default set when none are asked for). */
function resource(file: DriveFile, fields = 'kind, id, name, mimeType') {
	const full: Record<string, unknown> = {
		kind: 'drive#file',
		id: file.id,
		name: file.name,
		mimeType: file.mimeType,
		parents: [file.folder],
		trashed: false,
		size: String(file.bytes.length),
	};
	if (fields.trim() === '*') return full;
	const wanted = fields.split(',').map((each) => each.trim());
	return Object.fromEntries(Object.entries(full).filter(([key]) => wanted.includes(key)));
}

/** The parts of a multipart/related body: [headers, bytes] each. */
function multipart(body: Buffer, contentType: string): Array<[string, Buffer]> {
	const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
	if (!boundary) return [];
	const delimiter = Buffer.from(`--${boundary}`);
	const parts: Array<[string, Buffer]> = [];
	let start = body.indexOf(delimiter);
	while (start !== -1) {
		const next = body.indexOf(delimiter, start + delimiter.length);
		if (next === -1) break;
		const part = body.subarray(start + delimiter.length + 2, next - 2);
		const split = part.indexOf('\r\n\r\n');
		parts.push([part.subarray(0, split).toString('utf8'), part.subarray(split + 4)]);
		start = next;
	}
	return parts;
}

export async function startLocalDrive(): Promise<LocalDrive> {
	const files: DriveFile[] = [];
	const requests: string[] = [];
	const sessions = new Map<string, { name: string; folder: string; mimeType: string }>();
	let failing = 0;
	let failAfter = 0;
	let created = 0;

	const answer = (res: ServerResponse, status: number, body?: unknown) => {
		res.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8' });
		res.end(body === undefined ? '' : JSON.stringify(body));
	};
	const error = (res: ServerResponse, code: number, message: string, reason: string) =>
		answer(res, code, { error: { code, message, errors: [{ message, reason }] } });
	const create = (name: string, folder: string, mimeType: string, bytes: Buffer) => {
		const file = { id: `drive-file-${++created}`, name, folder, mimeType, bytes };
		files.push(file);
		return file;
	};
	const uploadFails = (res: ServerResponse) => {
		if (failing <= 0) return false;
		if (failAfter > 0) {
			failAfter--;
			return false;
		}
		failing--;
		error(res, 503, 'The service is currently unavailable.', 'backendError');
		return true;
	};

	function handle(req: IncomingMessage, body: Buffer, res: ServerResponse) {
		const url = new URL(req.url ?? '/', `https://${GOOGLE_HOST}`);
		const param = (key: string) => url.searchParams.get(key) ?? undefined;
		requests.push(`${req.method} ${url.pathname}`);
		const json = () =>
			body.length ? (JSON.parse(body.toString('utf8')) as Record<string, string>) : {};
		const byId = /^\/(?:upload\/)?drive\/v3\/files\/([^/]+)$/.exec(url.pathname)?.[1];
		const file = byId === undefined ? undefined : files.find((each) => each.id === byId);
		const fieldsOf = (list: string) =>
			/files\((.*)\)/.exec(list)?.[1] ?? 'kind, id, name, mimeType';

		if (req.method === 'GET' && url.pathname === '/drive/v3/files') {
			const matches = query(param('q') ?? '');
			if (!matches) return error(res, 400, `Invalid Value: q=${param('q')}`, 'invalid');
			const found = files.filter((each) => each.mimeType !== FOLDER_TYPE && matches(each));
			const limit = Number(param('pageSize') ?? 100);
			const fields = fieldsOf(param('fields') ?? '');
			return answer(res, 200, {
				kind: 'drive#fileList',
				incompleteSearch: false,
				files: found.slice(0, limit).map((each) => resource(each, fields)),
			});
		}
		if (req.method === 'POST' && url.pathname === '/upload/drive/v3/files') {
			if (uploadFails(res)) return;
			if (param('uploadType') === 'multipart') {
				const [[, metadata], [headers, bytes]] = multipart(body, req.headers['content-type'] ?? '');
				const { name, parents, mimeType } = JSON.parse(metadata.toString('utf8')) as {
					name: string;
					parents: string[];
					mimeType?: string;
				};
				const type =
					mimeType ?? /content-type: *(.+)/i.exec(headers)?.[1] ?? 'application/octet-stream';
				return answer(res, 200, resource(create(name, parents[0], type.trim(), bytes)));
			}
			if (param('uploadType') === 'resumable') {
				const { name, parents } = json() as unknown as { name: string; parents: string[] };
				const id = `upload-${sessions.size + 1}-${Date.now()}`;
				const mimeType = String(req.headers['x-upload-content-type'] ?? 'application/octet-stream');
				sessions.set(id, { name, folder: parents[0], mimeType });
				const location = `https://${GOOGLE_HOST}/upload/drive/v3/files?uploadType=resumable&upload_id=${id}`;
				res.writeHead(200, { Location: location, 'Content-Length': 0 });
				return res.end();
			}
		}
		if (req.method === 'PUT' && url.pathname === '/upload/drive/v3/files') {
			// The 32 KiB recordings come in one chunk; a session ends with its last byte.
			const session = sessions.get(param('upload_id') ?? '');
			if (!session) return error(res, 404, 'No such upload session.', 'notFound');
			sessions.delete(param('upload_id')!);
			return answer(
				res,
				200,
				resource(create(session.name, session.folder, session.mimeType, body)),
			);
		}
		if (byId !== undefined && !file) return error(res, 404, `File not found: ${byId}.`, 'notFound');
		if (req.method === 'PATCH' && file && url.pathname.startsWith('/upload/')) {
			if (param('uploadType') !== 'media')
				return error(res, 400, 'Use uploadType=media.', 'invalid');
			if (uploadFails(res)) return;
			file.bytes = body;
			file.mimeType = String(req.headers['content-type'] ?? file.mimeType);
			return answer(res, 200, resource(file));
		}
		if (req.method === 'PATCH' && file) {
			const { name, mimeType } = json();
			if (name) file.name = name;
			if (mimeType) file.mimeType = mimeType;
			if (param('addParents')) file.folder = param('addParents')!;
			return answer(res, 200, resource(file, param('fields')));
		}
		error(
			res,
			404,
			`Not a Drive call this stand-in knows: ${req.method} ${url.pathname}`,
			'notFound',
		);
	}

	const tunnel = await startGoogleTunnel((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => handle(req, Buffer.concat(chunks), res));
	});
	return {
		n8nEnv: tunnel.n8nEnv,
		files,
		requests,
		failUploads: (count, after = 0) => {
			[failing, failAfter] = [count, after];
		},
		clear: () => {
			files.length = 0;
			requests.length = 0;
			[failing, failAfter] = [0, 0];
		},
		stop: tunnel.stop,
	};
}
