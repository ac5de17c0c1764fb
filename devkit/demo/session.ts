/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * One real n8n (2.40.7, long-lived `n8n start`) with this package installed from its packed
 * tarball, plus the API emulator in this process on 127.0.0.1. Shared by the e2e suite (one
 * session per test file) and `npm run demo`.
 */
import * as fs from 'fs';

import {
	createN8nSandbox,
	startN8nServer,
	type CredentialJson,
	type N8nSandbox,
	type N8nServer,
} from '../n8n';
import { startEmulator, type Emulator, type EmulatorOptions } from '../emulator';
import { buildAndInstall } from './build';
import { credentialJson } from '../workflows';

export interface SessionOptions {
	emulator?: EmulatorOptions;
	/** The folder n8n's file nodes may use (N8N_RESTRICT_FILE_ACCESS_TO); default: the sandbox's. */
	filesDir?: string;
	/** Extra n8n env vars. */
	env?: Record<string, string>;
	log?: (message: string) => void;
}

/** Pacing (requestsPerMinute) is off by default; the base URL defaults to the emulator's. */
export type CredentialData = Omit<Parameters<typeof credentialJson>[1], 'baseUrl'> & {
	baseUrl?: string;
};

export interface Session {
	sandbox: N8nSandbox;
	server: N8nServer;
	emulator: Emulator;
	filesDir: string;
	/** A credential of our type; `id` is the name workflows reference it by. */
	credential(id: string, data: CredentialData, name?: string): CredentialJson;
	/** n8n's server log so far. */
	serverLog(): string;
	close(): Promise<void>;
}

export async function openSession(options: SessionOptions = {}): Promise<Session> {
	const log = options.log ?? (() => {});
	const env = { ...options.env };
	if (options.filesDir) env.N8N_RESTRICT_FILE_ACCESS_TO = options.filesDir;
	const sandbox = await createN8nSandbox({ env });
	const filesDir = options.filesDir ?? sandbox.filesDir;
	let server: N8nServer | undefined;
	let emulator: Emulator | undefined;
	try {
		const { installed } = await buildAndInstall(sandbox.userFolder, log);
		log(`installed ${installed.tarballName} into n8n's community nodes folder`);
		log('starting n8n');
		server = await startN8nServer(sandbox);
		emulator = await startEmulator(options.emulator);
	} catch (error) {
		await server?.stop();
		sandbox.cleanup();
		throw error;
	}
	const [n8n, api] = [server, emulator];
	return {
		sandbox,
		server: n8n,
		emulator: api,
		filesDir,
		credential: (id, data, name = `Lead & Call Access (${id})`) =>
			credentialJson(id, { ...data, baseUrl: data.baseUrl ?? api.baseUrl }, name),
		serverLog: () => (fs.existsSync(n8n.logFile) ? fs.readFileSync(n8n.logFile, 'utf8') : ''),
		close: async () => {
			await n8n.stop();
			await api.stop();
			sandbox.cleanup();
		},
	};
}
