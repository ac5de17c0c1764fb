/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Builds the package once for everything that packs it (each e2e test file, the demo), however
 * many jest workers ask at the same time: a lock folder serialises them and a hash of the build
 * inputs, written after a successful build, lets the later ones skip it.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import { packAndInstall, REPO_DIR, type InstalledPackage } from '../n8n';
import { withFolderLock } from '../n8n/n8n-install';
import { runProcess } from '../n8n/process';

const STATE_DIR = path.join(REPO_DIR, 'node_modules', '.cache', 'n8n-nodes-lead-call-access');
const MARKER = path.join(STATE_DIR, 'build-inputs.sha256');
const INPUTS = ['nodes', 'credentials', 'package.json', 'tsconfig.json', 'gulpfile.js', 'index.js'];

/** Hash of every file tsc and gulp read, names included (a rename must rebuild too). */
function buildInputsHash(): string {
	const hash = createHash('sha256');
	const under = (input: string): string[] =>
		fs.statSync(input).isDirectory()
			? fs.readdirSync(input, 'utf8').flatMap((name) => under(path.join(input, name)))
			: [input];
	const inputs = INPUTS.map((input) => path.join(REPO_DIR, input)).filter(fs.existsSync);
	for (const file of inputs.flatMap(under).sort()) {
		hash.update(path.relative(REPO_DIR, file)).update('\0').update(fs.readFileSync(file));
	}
	return hash.digest('hex');
}

/** The compiled files package.json points n8n at: a half-deleted dist/ must rebuild. */
function distComplete(): boolean {
	const pkg = JSON.parse(fs.readFileSync(path.join(REPO_DIR, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const files = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
	return files.every((file) => fs.existsSync(path.join(REPO_DIR, file)));
}

async function buildIfChanged(log: (message: string) => void): Promise<boolean> {
	const inputs = buildInputsHash();
	const built = fs.existsSync(MARKER) ? fs.readFileSync(MARKER, 'utf8').trim() : '';
	if (built === inputs && distComplete()) return false;
	log('building the package (npm run build)');
	fs.rmSync(MARKER, { force: true });
	const options = { cwd: REPO_DIR, env: process.env, timeoutMs: 300_000 };
	const result = await runProcess('npm', ['run', 'build'], options);
	if (result.code !== 0) {
		const output = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-40).join('\n');
		throw new Error(`npm run build failed (exit ${result.code}):\n${output}`);
	}
	fs.writeFileSync(MARKER, inputs);
	return true;
}

/**
 * Builds when the sources changed since the last build, then packs and installs the tarball
 * into the n8n user folder. Packing happens under the same lock, so no worker packs a dist/
 * that another one is rewriting.
 */
export async function buildAndInstall(
	userFolder: string,
	log: (message: string) => void = () => {},
): Promise<{ built: boolean; installed: InstalledPackage }> {
	const lock = path.join(STATE_DIR, 'build.lock');
	return await withFolderLock(
		lock,
		async () => ({
			built: await buildIfChanged(log),
			installed: await packAndInstall(REPO_DIR, userFolder),
		}),
		{ pollMs: 250 },
	);
}
