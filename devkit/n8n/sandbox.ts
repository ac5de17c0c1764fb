/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { ensureN8n, N8N_MAJOR, type N8nInstall } from './n8n-install';
import { freePort } from './process';

export interface SandboxOptions {
	/** Where n8n keeps binary data; `filesystem` (default) writes under the user folder. */
	binaryDataMode?: 'filesystem' | 'database';
	/** Extra env vars, applied last (they win). */
	env?: Record<string, string>;
}

export interface N8nSandbox {
	install: N8nInstall;
	/** N8N_USER_FOLDER; n8n's own state lives in `<userFolder>/.n8n`. */
	userFolder: string;
	/** The only folder n8n's file nodes may read/write (N8N_RESTRICT_FILE_ACCESS_TO). */
	filesDir: string;
	/** SQLite database n8n writes executions, workflows and credentials to. */
	databaseFile: string;
	/** Port `n8n start` listens on (127.0.0.1); the task broker gets its own port. */
	port: number;
	env: NodeJS.ProcessEnv;
	/** Removes the folder, unless LCA_E2E_KEEP=1 (debugging). */
	cleanup(): void;
}

/**
 * Env prefixes n8n reads. They are stripped from the inherited environment so a developer's
 * shell (or a real n8n install) cannot change what the tests see.
 */
const N8N_ENV_PREFIXES = [
	'N8N_',
	'DB_',
	'EXECUTIONS_',
	'QUEUE_',
	'WEBHOOK_URL',
	'NODES_',
	'GENERIC_',
];

/** A temp N8N_USER_FOLDER plus the env for a quiet, local, offline n8n. */
export async function createN8nSandbox(options: SandboxOptions = {}): Promise<N8nSandbox> {
	const install = await ensureN8n();
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'lca-n8n-'));
	const filesDir = path.join(userFolder, 'files');
	fs.mkdirSync(path.join(userFolder, '.n8n'), { recursive: true });
	fs.mkdirSync(filesDir);
	const [port, brokerPort] = [await freePort(), await freePort()];

	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(([k]) => !N8N_ENV_PREFIXES.some((p) => k.startsWith(p))),
	);
	const env: NodeJS.ProcessEnv = {
		...inherited,
		// jest sets NODE_ENV=test, which makes n8n refuse to load nodes ("Not available in
		// tests"); unset means development mode (hot reload watchers). Run as users do.
		NODE_ENV: 'production',
		N8N_USER_FOLDER: userFolder,
		// Known key: no generated config file race between parallel CLI calls.
		N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		DB_TYPE: 'sqlite',
		// 1.x defaults to one shared SQLite connection, on which concurrent REST calls race
		// (TypeORM then names a savepoint `typeorm_-1`: "SQLITE_ERROR: near "-""). 2.x pools.
		...(N8N_MAJOR < 2 ? { DB_SQLITE_POOL_SIZE: '2' } : {}),
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		// Offline and quiet: nothing phones home or waits on the network.
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_PUBLIC_API_DISABLED: 'true',
		// 2.x `n8n start` otherwise fetches https://api.n8n.io/api/mcp-servers (stack traces
		// offline); 1.x has no such module and refuses to start when an unknown one is named.
		...(N8N_MAJOR >= 2 ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		// Community packages load from <userFolder>/.n8n/nodes; never ask a registry about them.
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		// Read by n8n 1.x for community nodes used as AI tools; harmless in 2.x.
		N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE: 'true',
		// Keep every execution so tests can inspect exactly what n8n stored.
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		EXECUTIONS_DATA_PRUNE: 'false',
		N8N_DEFAULT_BINARY_DATA_MODE: options.binaryDataMode ?? 'filesystem',
		// 2.x's default folder for filesystem binary data; 1.x defaults to `.n8n/binaryData`.
		N8N_BINARY_DATA_STORAGE_PATH: path.join(userFolder, '.n8n', 'storage'),
		// 2.x default is ~/.n8n-files; point file nodes at the sandbox instead.
		N8N_RESTRICT_FILE_ACCESS_TO: filesDir,
		// Loopback only. The emulator runs on 127.0.0.1, so SSRF protection must stay off.
		N8N_SSRF_PROTECTION_ENABLED: 'false',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_PORT: String(port),
		N8N_SECURE_COOKIE: 'false',
		// The task broker listens on 5679 by default: parallel n8n processes would collide.
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		// `execute` prints its failure report at info level; keep it.
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		...options.env,
	};

	const keep = process.env.LCA_E2E_KEEP === '1';
	return {
		install,
		userFolder,
		filesDir,
		databaseFile: path.join(userFolder, '.n8n', 'database.sqlite'),
		port,
		env,
		cleanup: () => {
			if (!keep) fs.rmSync(userFolder, { recursive: true, force: true });
		},
	};
}
