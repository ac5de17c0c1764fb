/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * HTTP helpers of both origins. API handlers return a `Reply` rather than write the response, so
 * that a fault can still decide what becomes of an answer already computed (process the request,
 * then reset the connection instead of answering).
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

/** FastAPI's error body for HTTPException. */
export const detail = (status: number, message: string, headers?: Record<string, string>): Reply =>
	json(status, { detail: message }, headers);

export const xml = (status: number, code: string, message: string): Reply => ({
	status,
	headers: { 'Content-Type': 'application/xml' },
	body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
});

export const reasonPhrase = (status: number): string => STATUS_CODES[status] ?? 'Unknown Status';

export function sendReply(res: ServerResponse, reply: Reply): void {
	const body = Buffer.from(reply.body ?? '', 'utf8');
	res.writeHead(reply.status, { ...reply.headers, 'Content-Length': String(body.length) });
	res.end(body);
}

export async function readBody(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

/** Query parameters as a flat record; a repeated name keeps its last value (as FastAPI does). */
export const queryRecord = (params: URLSearchParams): Record<string, string> =>
	Object.fromEntries(params);

/** Resets the connection (RST, so clients see ECONNRESET rather than a clean close). */
export function resetSocket(req: IncomingMessage): void {
	if (!req.socket.destroyed) req.socket.resetAndDestroy();
}

export function listen(server: Server, port: number, host: string): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
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
	const loopback: Record<string, string> = { '0.0.0.0': '127.0.0.1', '::': '::1' };
	const connectHost = loopback[host] ?? host;
	return `http://${connectHost.includes(':') ? `[${connectHost}]` : connectHost}:${port}`;
}

/** Answers 500 (or cuts a response already under way), loud in the test output. */
export function internalError(res: ServerResponse, error: unknown): void {
	console.error('[emulator] internal error:', error);
	if (res.headersSent) res.destroy();
	else
		sendReply(res, {
			status: 500,
			headers: { 'Content-Type': 'text/plain' },
			body: 'Internal Server Error',
		});
}
