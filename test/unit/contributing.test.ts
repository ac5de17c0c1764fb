/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * CONTRIBUTING.md stays true to the tree: every file, folder and npm script it names exists, and
 * every link into a Markdown file lands on a heading. README.md's npm commands and links are
 * checked the same way. A path is what looks like one in backticks, a code block or a link: it
 * contains a `/` or ends in a known extension; URLs, globs, `<placeholders>`, absolute paths
 * (API routes, /tmp) and home paths (~) are not repository paths and are left alone.
 */
import * as fs from 'fs';
import * as path from 'path';

import { FENCED, allLinkTargets, anchors } from '../markdownLinks';

const ROOT = path.join(__dirname, '..', '..');
const EXTENSIONS = /\.(ts|js|json|md|mjs|sh)$/;
/** Generated or installed, absent from a fresh clone: never named as a source. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules', 'dist']);
/** npm commands that run a package.json script without `run`. */
const SCRIPT_SHORTHANDS = new Set(['test', 'start', 'stop', 'restart']);

interface Tree {
	/** A path relative to the repository root exists (a trailing `/` asks for a folder). */
	has: (relative: string) => boolean;
	/** A bare file name (`deliver.ts`) is some file's name in the repository. */
	hasFileNamed: (name: string) => boolean;
	scripts: Set<string>;
	/** The heading anchors of a Markdown file, or undefined when there is no such file. */
	anchorsOf: (relative: string) => Set<string> | undefined;
}

/** The words of code blocks and inline code, and link targets (without their #anchor). */
function pathTokens(markdown: string): string[] {
	const blocks = [...markdown.matchAll(FENCED)].map(([, , body]) => body);
	const prose = markdown.replace(FENCED, '');
	const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map(([, span]) => span);
	return [...blocks, ...spans]
		.flatMap((text) => text.split(/\s+/))
		.concat(linkTargets(prose).map(({ file }) => file))
		.map((token) => token.replace(/^["'(]+|["'),;:.!?]+$/g, ''));
}

function linkTargets(prose: string): Array<{ file: string; anchor?: string }> {
	return allLinkTargets(prose)
		.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
		.map((target) => {
			const [file, anchor] = target.split('#');
			return { file, anchor };
		});
}

function isRepositoryPath(token: string): boolean {
	if (!/^[\w.@/-]+$/.test(token)) return false; // placeholders, globs, assignments, prose
	if (/^[/~@]/.test(token)) return false; // absolute, home, npm scope
	return token.includes('/') || EXTENSIONS.test(token);
}

function npmScripts(markdown: string): string[] {
	return [...markdown.matchAll(/\bnpm\s+(run(?:-script)?\s+)?([a-z][\w:.-]*)(?![\w*])/gi)]
		.filter(([, run, name]) => run !== undefined || SCRIPT_SHORTHANDS.has(name))
		.map(([, , name]) => name.replace(/[.:]+$/, ''));
}

/** What `markdown` (the file `source`, relative to the root) names that the tree does not have. */
function missingNames(
	markdown: string,
	source: string,
	tree: Tree,
	{ paths = true } = {},
): string[] {
	const missing = new Set<string>();
	if (paths) {
		for (const token of pathTokens(markdown)) {
			if (!token || !isRepositoryPath(token)) continue;
			const found = token.includes('/') ? tree.has(token) : tree.hasFileNamed(token);
			if (!found) missing.add(token);
		}
	}
	for (const { file, anchor } of linkTargets(markdown.replace(FENCED, ''))) {
		const target = file === '' ? source : path.posix.join(path.posix.dirname(source), file);
		if (!tree.has(target)) missing.add(file);
		else if (anchor && !tree.anchorsOf(target)?.has(anchor)) missing.add(`${file}#${anchor}`);
	}
	for (const script of npmScripts(markdown)) {
		if (!tree.scripts.has(script)) missing.add(`npm run ${script}`);
	}
	return [...missing];
}

function fileNames(folder: string, names = new Set<string>()): Set<string> {
	for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
		if (SKIPPED_FOLDERS.has(entry.name)) continue;
		if (entry.isDirectory()) fileNames(path.join(folder, entry.name), names);
		else names.add(entry.name);
	}
	return names;
}

const read = (relative: string) => fs.readFileSync(path.join(ROOT, relative), 'utf8');

const names = fileNames(ROOT);
const repository: Tree = {
	has: (relative) => {
		const full = path.join(ROOT, relative);
		const first = relative.split('/')[0];
		if (SKIPPED_FOLDERS.has(first) || !fs.existsSync(full)) return false;
		return !relative.endsWith('/') || fs.statSync(full).isDirectory();
	},
	hasFileNamed: (name) => names.has(name),
	scripts: new Set(Object.keys(JSON.parse(read('package.json')).scripts)),
	anchorsOf: (relative) =>
		relative.endsWith('.md') && repository.has(relative) ? anchors(read(relative)) : new Set(),
};

describe('CONTRIBUTING.md', () => {
	const guide = read('CONTRIBUTING.md');

	test('names only files, folders, headings and npm scripts that exist (rename or drop each listed)', () => {
		expect(missingNames(guide, 'CONTRIBUTING.md', repository)).toEqual([]);
	});

	test('is read in one sitting: at most 250 lines', () => {
		expect(guide.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
	});
});

test("README.md's npm commands and links exist (fix each listed)", () => {
	expect(missingNames(read('README.md'), 'README.md', repository, { paths: false })).toEqual([]);
});

test('the check names each made-up file, folder, heading and script, and nothing else', () => {
	const madeUp = [
		'Run `npm run no-such-script`, then `npm test` and `npm run build`.',
		'The rules are in `nodes/shared/transport/gone.ts` and `walk.ts`, beside `calls.ts`.',
		'Tests: `test/nowhere/`, `test/unit/` and `npx jest test/unit/phone.test.ts`.',
		'See [the guide](docs/missing.md), [bench](bench/README.md),',
		'[a section](CONTRIBUTING.md#no-such-section) and [tests](CONTRIBUTING.md#tests).',
		'Not paths: `<tmp>/lead-call-access-ui`, `~/.cache/x/y.ts`, `/tmp/a.ts`, `POST /v1/leads`,',
		'`examples/*.json`, `LCA_N8N_VERSION=1.123.81`, [n8n](https://docs.n8n.io/a/b.md).',
		'```sh',
		'node devkit/n8n/nope.js   # then npm run also-missing',
		'```',
	].join('\n');
	expect(missingNames(madeUp, 'CONTRIBUTING.md', repository).sort()).toEqual(
		[
			'CONTRIBUTING.md#no-such-section',
			'devkit/n8n/nope.js',
			'docs/missing.md',
			'nodes/shared/transport/gone.ts',
			'npm run also-missing',
			'npm run no-such-script',
			'test/nowhere/',
			'walk.ts',
		].sort(),
	);
});
