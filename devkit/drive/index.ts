/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * A stand-in for Google Drive, which cannot be reached offline: an HTTP server on loopback that
 * keeps every file sent to it, `POST /upload?name=<file name>&folder=<folder id>` with the file's
 * bytes as the body, and answers as Drive's upload does (`{ id, name, parents }`). Drive keeps
 * files of the same name side by side, and so does this. The test harness points HTTP Request
 * nodes at it in place of the examples' Google Drive nodes (devkit/demo/recordingExamples.ts).
 */
import { createServer } from 'http';
import type { AddressInfo } from 'net';

export interface DriveFile {
	id: string;
	name: string;
	/** The folder id the file was put in. */
	folder: string;
	contentType: string | undefined;
	bytes: Buffer;
}

export interface LocalDrive {
	/** e.g. http://127.0.0.1:43123 */
	url: string;
	/** Every file received, in arrival order. */
	readonly files: DriveFile[];
	stop(): Promise<void>;
}

export async function startLocalDrive(): Promise<LocalDrive> {
	const files: DriveFile[] = [];
	const server = createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://drive');
		const [name, folder] = ['name', 'folder'].map((key) => url.searchParams.get(key));
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const upload = req.method === 'POST' && url.pathname === '/upload' && name && folder;
			const id = `file-${files.length + 1}`;
			const contentType = req.headers['content-type'];
			if (upload) files.push({ id, name, folder, contentType, bytes: Buffer.concat(chunks) });
			res.writeHead(upload ? 200 : 400, { 'Content-Type': 'application/json' });
			const usage = 'POST /upload?name=…&folder=… with the file as the body';
			res.end(JSON.stringify(upload ? { id, name, parents: [folder] } : { error: usage }));
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const { port } = server.address() as AddressInfo;
	const stop = () =>
		new Promise<void>((resolve) => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
	return { url: `http://127.0.0.1:${port}`, files, stop };
}
