/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
import type { IncomingMessage, ServerResponse } from 'http';
import { createServer } from 'http';
import type { AddressInfo } from 'net';

export interface StubRequest {
	method: string;
	url: string;
	headers: IncomingMessage['headers'];
	body: string;
}

export type StubHandler = (request: StubRequest, res: ServerResponse) => void;

/**
 * A small HTTP server on 127.0.0.1 that records every request it gets: stands in for a
 * foreign origin (to see what reaches it) or for an API that redirects elsewhere.
 */
export class StubServer {
	readonly requests: StubRequest[] = [];
	private readonly server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const request = {
				method: req.method ?? 'GET',
				url: req.url ?? '/',
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
			};
			this.requests.push(request);
			this.handler(request, res);
		});
	});
	url = '';

	private constructor(private handler: StubHandler) {}

	static async start(handler: StubHandler): Promise<StubServer> {
		const stub = new StubServer(handler);
		await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve));
		stub.url = `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}`;
		return stub;
	}

	/** Everything it received, as one text, to search for a secret. */
	text(): string {
		return JSON.stringify(this.requests);
	}

	async stop(): Promise<void> {
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
	}
}

export function reply(
	res: ServerResponse,
	status: number,
	headers: Record<string, string>,
	body = '',
): void {
	res.writeHead(status, { 'Content-Length': String(Buffer.byteLength(body)), ...headers });
	res.end(body);
}
