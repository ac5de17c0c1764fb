/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * How n8n's own Google Drive node reaches the Drive stand-in: the node calls
 * https://www.googleapis.com and nothing else, so n8n is started with an HTTPS proxy (n8n sends
 * every outgoing request through HTTPS_PROXY, both lines) that is this server. It answers CONNECT
 * to www.googleapis.com:443 with a TLS endpoint whose certificate n8n trusts
 * (NODE_EXTRA_CA_CERTS), made for the session with openssl; any other host is refused, so nothing
 * leaves the machine. Loopback (the emulator, n8n itself) bypasses the proxy (NO_PROXY).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import { createServer as createHttpServer, type RequestListener } from 'http';
import { createServer as createHttpsServer } from 'https';
import type { AddressInfo } from 'net';
import type { Duplex } from 'stream';
import * as os from 'os';
import * as path from 'path';

export const GOOGLE_HOST = 'www.googleapis.com';

export interface Tunnel {
	/** The env n8n needs to send Google's requests here. */
	n8nEnv: Record<string, string>;
	stop(): Promise<void>;
}

/** A self-signed certificate for GOOGLE_HOST that is its own authority. */
function certificate(folder: string) {
	const [key, cert] = ['key.pem', 'cert.pem'].map((name) => path.join(folder, name));
	execFileSync(
		'openssl',
		[
			...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2'],
			...['-keyout', key, '-out', cert, '-subj', `/CN=${GOOGLE_HOST}`],
			...['-addext', `subjectAltName=DNS:${GOOGLE_HOST}`],
			...['-addext', 'basicConstraints=critical,CA:TRUE'],
			...['-addext', 'keyUsage=critical,digitalSignature,keyCertSign'],
		],
		{ stdio: 'ignore' },
	);
	return { key: fs.readFileSync(key), cert: fs.readFileSync(cert), certFile: cert };
}

/** Serves `handler` as https://www.googleapis.com to whoever uses the returned proxy. */
export async function startGoogleTunnel(handler: RequestListener): Promise<Tunnel> {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lca-google-'));
	const { key, cert, certFile } = certificate(folder);
	const google = createHttpsServer({ key, cert }, handler);
	const proxy = createHttpServer((_, res) => res.writeHead(405).end('CONNECT only'));
	const tunnels = new Set<Duplex>();
	proxy.on('connect', (req, socket: Duplex) => {
		tunnels.add(socket);
		socket.on('close', () => tunnels.delete(socket));
		if (req.url !== `${GOOGLE_HOST}:443`) {
			socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
			return;
		}
		socket.write('HTTP/1.1 200 Connection Established\r\n\r\n', () =>
			google.emit('connection', socket),
		);
	});
	await new Promise<void>((resolve, reject) => {
		proxy.once('error', reject);
		proxy.listen(0, '127.0.0.1', () => resolve());
	});
	const { port } = proxy.address() as AddressInfo;
	const proxyUrl = `http://127.0.0.1:${port}`;
	return {
		n8nEnv: {
			HTTPS_PROXY: proxyUrl,
			HTTP_PROXY: proxyUrl,
			NO_PROXY: '127.0.0.1,localhost,::1',
			NODE_EXTRA_CA_CERTS: certFile,
		},
		stop: () =>
			new Promise<void>((resolve) => {
				proxy.close(() => resolve());
				proxy.closeAllConnections();
				for (const socket of tunnels) socket.destroy();
				fs.rmSync(folder, { recursive: true, force: true });
			}),
	};
}
