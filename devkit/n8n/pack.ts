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

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
	const result = await runProcess(cmd, args, { cwd, env: process.env, timeoutMs: 300_000 });
	if (result.code !== 0) {
		throw new Error(
			`${cmd} ${args.join(' ')} failed in ${cwd} (exit ${result.code}):\n${result.stderr}`,
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
	try {
		// --ignore-scripts: pack must not rebuild; the caller runs `npm run build` first.
		const packArgs = ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir];
		const [{ name, version, filename }] = JSON.parse(await run('npm', packArgs, repoDir)) as Array<
			Record<'name' | 'version' | 'filename', string>
		>;
		const tarballName = path.basename(filename);
		const nodesDir = path.join(userFolder, '.n8n', 'nodes');
		const packageDir = path.join(nodesDir, 'node_modules', name);
		fs.rmSync(packageDir, { recursive: true, force: true });
		fs.mkdirSync(packageDir, { recursive: true });
		const tarball = path.join(packDir, tarballName);
		await run('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], packDir);

		const pkgFile = path.join(packageDir, 'package.json');
		// eslint-disable-next-line @typescript-eslint/no-unused-vars
		const { devDependencies, peerDependencies, optionalDependencies, ...pkg } = JSON.parse(
			fs.readFileSync(pkgFile, 'utf8'),
		) as Record<string, unknown>;
		fs.writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
		const flags = ['--audit=false', '--fund=false', '--bin-links=false', '--package-lock=false'];
		const shallow = ['--install-strategy=shallow', '--ignore-scripts=true'];
		await run('npm', ['install', ...flags, ...shallow], packageDir);

		const ledgerFile = path.join(nodesDir, 'package.json');
		const ledger = fs.existsSync(ledgerFile)
			? (JSON.parse(fs.readFileSync(ledgerFile, 'utf8')) as { dependencies?: object })
			: { name: 'installed-nodes', private: true, dependencies: {} };
		ledger.dependencies = { ...ledger.dependencies, [name]: version };
		fs.writeFileSync(ledgerFile, JSON.stringify(ledger, null, 2));
		return { name, version, packageDir, tarballName };
	} finally {
		fs.rmSync(packDir, { recursive: true, force: true });
	}
}
