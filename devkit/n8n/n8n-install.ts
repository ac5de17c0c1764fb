/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
import * as path from 'path';

/** Paths of a complete n8n install in the cache (see devkit/n8n/install.js). */
export interface N8nInstall {
	node24Path: string;
	n8nBin: string;
	cacheDir: string;
}

export const REPO_DIR = path.resolve(__dirname, '..', '..');

// The installer is plain CommonJS so it runs without a build or ts-node; load it untyped.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const installer = require('./install.js') as {
	ensureN8n(): Promise<N8nInstall>;
	withFolderLock<T>(
		lock: string,
		fn: () => Promise<T>,
		options?: { pollMs?: number; onWait?: () => void },
	): Promise<T>;
	N8N_VERSION: string;
	NODE_VERSION: string;
};

/** The n8n release the harness runs: LCA_N8N_VERSION, else the default of install.js. */
export const N8N_VERSION = installer.N8N_VERSION;
/** 1 or 2: the few places where the two lines differ (env vars, REST routes) branch on it. */
export const N8N_MAJOR = Number(N8N_VERSION.split('.')[0]);
export const NODE24_VERSION = installer.NODE_VERSION;

let pending: Promise<N8nInstall> | undefined;

/** Installs n8n into the cache on first use (minutes), then returns at once. */
export function ensureN8n(): Promise<N8nInstall> {
	pending ??= installer.ensureN8n();
	return pending;
}

/** The cached n8n/node_modules folder (sqlite3, flatted ... for helper scripts). */
export const n8nModulesDir = (install: N8nInstall) =>
	path.join(install.cacheDir, 'n8n', 'node_modules');

/** A cross-process lock held while `fn` runs (a folder holding the holder's pid). */
export const withFolderLock = installer.withFolderLock;
