/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Small HTTP helpers shared by both origins. API handlers return a `Reply` instead of writing to
 * the response directly, so that a fault can still decide what happens to an already computed
 * answer (for example: process the request, then reset the connection instead of answering).
 */
import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'http';
import { AddressInfo } from 'net';

export interface Reply {
	status: number;
	headers?: Record<string, string>;
	body?: string;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
	return {
		status,
		headers: { 'Content-Type': 'application/json', ...headers },
		body: JSON.stringify(value),
	};
}

/** FastAPI's default error body for HTTPException. */
export function detail(status: number, message: string, headers?: Record<string, string>): Reply {
	return json(status, { detail: message }, headers);
}

export function xml(status: number, code: string, message: string): Reply {
	return {
		status,
		headers: { 'Content-Type': 'application/xml' },
		body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
	};
}

export function reasonPhrase(status: number): string {
	return STATUS_CODES[status] ?? 'Unknown Status';
}

export function sendReply(res: ServerResponse, reply: Reply, headOnly = false): void {
	const body = Buffer.from(reply.body ?? '', 'utf8');
	res.writeHead(reply.status, { ...reply.headers, 'Content-Length': String(body.length) });
	res.end(headOnly ? undefined : body);
}

export class BodyTooLargeError extends Error {}

/** Reads the whole request body as UTF-8. Bodies here are small JSON documents. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let tooLarge = false;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			// Keep draining (so the client can finish sending and read our 413) but stop storing.
			if (size > maxBytes) tooLarge = true;
			else chunks.push(chunk);
		});
		req.on('end', () => {
			if (tooLarge) reject(new BodyTooLargeError('body too large'));
			else resolve(Buffer.concat(chunks).toString('utf8'));
		});
		req.on('error', reject);
	});
}

/** Query parameters as a flat record; a repeated name keeps its last value (as FastAPI does). */
export function queryRecord(params: URLSearchParams): Record<string, string> {
	const out: Record<string, string> = {};
	params.forEach((value, name) => {
		out[name] = value;
	});
	return out;
}

/** Resets the connection (RST, so clients see ECONNRESET rather than a clean close). */
export function resetSocket(req: IncomingMessage): void {
	const socket = req.socket;
	if (socket.destroyed) return;
	if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
	else socket.destroy();
}

export function listen(server: Server, port: number, host: string): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve((server.address() as AddressInfo).port);
		});
	});
}

export function close(server: Server): Promise<void> {
	return new Promise((resolve) => {
		server.close(() => resolve());
		// Also ends keep-alive, hung and streaming connections, which close() alone would wait for.
		server.closeAllConnections();
	});
}

export function originUrl(host: string, port: number): string {
	// A wildcard bind address is not something a client can connect to; use loopback in URLs.
	const connectHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
	return `http://${connectHost.includes(':') ? `[${connectHost}]` : connectHost}:${port}`;
}

/** Answers 500 (or cuts a response already under way) and says why on the console. */
export function internalError(res: ServerResponse, error: unknown): void {
	// A bug in the emulator must be loud in test output, but still answer like a real server.
	console.error('[emulator] internal error:', error);
	if (!res.headersSent)
		sendReply(res, {
			status: 500,
			headers: { 'Content-Type': 'text/plain' },
			body: 'Internal Server Error',
		});
	else res.destroy();
}
