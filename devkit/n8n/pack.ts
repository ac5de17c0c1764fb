/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { runProcess } from './process';

export interface InstalledPackage {
	name: string;
	version: string;
	/** `<userFolder>/.n8n/nodes/node_modules/<name>` */
	packageDir: string;
	/** File name npm pack produced (the temp tarball itself is deleted). */
	tarballName: string;
}

async function npm(args: string[], cwd: string): Promise<string> {
	const result = await runProcess('npm', args, { cwd, env: process.env, timeoutMs: 300_000 });
	if (result.code !== 0) {
		throw new Error(
			`npm ${args.join(' ')} failed in ${cwd} (exit ${result.code}):\n${result.stderr}`,
		);
	}
	return result.stdout;
}

/**
 * `npm pack`s repoDir (dist/ must already be built) and installs the tarball into
 * `<userFolder>/.n8n/nodes` the way n8n 2.40.7's CommunityPackagesService.downloadPackage does:
 * unpack into node_modules/<name>, drop dev/peer/optional dependencies from its package.json
 * (else npm would install a second n8n-workflow as a peer), `npm install` inside the package
 * with n8n's flags, and record it in nodes/package.json. n8n then finds it by scanning
 * node_modules for `n8n-nodes-*` / `@scope/n8n-nodes-*` folders.
 */
export async function packAndInstall(
	repoDir: string,
	userFolder: string,
): Promise<InstalledPackage> {
	const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lca-pack-'));
	// --ignore-scripts: pack must not rebuild; the caller runs `npm run build` first.
	const [info] = JSON.parse(
		await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], repoDir),
	) as Array<{ name: string; version: string; filename: string }>;
	const tarball = path.join(packDir, path.basename(info.filename));
	try {
		return await installTarball(tarball, info, userFolder);
	} finally {
		fs.rmSync(packDir, { recursive: true, force: true });
	}
}

async function installTarball(
	tarball: string,
	info: { name: string; version: string; filename: string },
	userFolder: string,
): Promise<InstalledPackage> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const packageDir = path.join(nodesDir, 'node_modules', info.name);
	fs.rmSync(packageDir, { recursive: true, force: true });
	fs.mkdirSync(packageDir, { recursive: true });
	const result = await runProcess('tar', [
		'-xzf',
		tarball,
		'-C',
		packageDir,
		'--strip-components=1',
	]);
	if (result.code !== 0) throw new Error(`tar failed: ${result.stderr}`);

	const pkgFile = path.join(packageDir, 'package.json');
	// eslint-disable-next-line @typescript-eslint/no-unused-vars
	const { devDependencies, peerDependencies, optionalDependencies, ...pkg } = JSON.parse(
		fs.readFileSync(pkgFile, 'utf8'),
	) as Record<string, unknown>;
	fs.writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
	await npm(
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		packageDir,
	);

	const ledgerFile = path.join(nodesDir, 'package.json');
	const ledger = fs.existsSync(ledgerFile)
		? (JSON.parse(fs.readFileSync(ledgerFile, 'utf8')) as { dependencies?: Record<string, string> })
		: { name: 'installed-nodes', private: true, dependencies: {} };
	ledger.dependencies = { ...ledger.dependencies, [info.name]: info.version };
	fs.writeFileSync(ledgerFile, JSON.stringify(ledger, null, 2));

	return {
		name: info.name,
		version: info.version,
		packageDir,
		tarballName: path.basename(tarball),
	};
}
