/**
 * `npm run scan`: n8n's package scanner (@n8n/scan-community-package, the check n8n runs before it
 * verifies a community package) on this repository, without publishing: its source leg on the
 * sources (package.json, nodes/, credentials/) and its tarball leg on the unpacked `npm pack`
 * tarball (compiled .js and package.json). Needs `npm run build` first. Exit 1 on a violation.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lca-scan-'));
try {
	const [packed] = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', workDir], {
			cwd: repoDir,
			encoding: 'utf8',
		}),
	);
	const packageDir = path.join(workDir, 'package');
	fs.mkdirSync(packageDir);
	execFileSync('tar', [
		'-xzf',
		path.join(workDir, packed.filename),
		'-C',
		packageDir,
		'--strip-components=1',
	]);

	const legs = [
		['source', await analyzePackage(repoDir, SOURCE_FILE_PATTERNS)],
		[`tarball ${packed.filename}`, await analyzePackage(packageDir, ['**/*.js', 'package.json'])],
	];
	for (const [leg, result] of legs) {
		process.stdout.write(
			`${result.passed ? 'passed' : 'FAILED'}: ${leg}${result.message ? ` (${result.message})` : ''}\n`,
		);
		if (result.details) process.stdout.write(`${result.details}\n`);
	}
	process.exitCode = legs.every(([, result]) => result.passed) ? 0 : 1;
} finally {
	fs.rmSync(workDir, { recursive: true, force: true });
}
