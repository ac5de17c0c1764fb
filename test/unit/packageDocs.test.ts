/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The pages users are sent to travel in the package and open where users read them: on the npm
 * page (n8n's Docs link opens it too) and in the installed package. npm resolves a README's
 * relative links only against a `repository`, and package.json has none (the package has no
 * public repository), so README.md links to the package's files on jsDelivr, which serves every
 * file of every published npm package; the node code links to the npm page's headings. The
 * tarball's file list is npm's own (`npm pack --dry-run`, no network).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import { MAINTAINERS } from '../../nodes/shared/errors';
import { allLinkTargets, anchors } from '../markdownLinks';

const ROOT = path.join(__dirname, '..', '..');
const read = (relative: string) => fs.readFileSync(path.join(ROOT, relative), 'utf8');
const pkg = JSON.parse(read('package.json')) as { name: string; homepage: string };
const NPM_PAGE = `https://www.npmjs.com/package/${pkg.name}`;
const FILES_URL = `https://cdn.jsdelivr.net/npm/${pkg.name}/`;

const packed = JSON.parse(
	execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: ROOT,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	}),
) as Array<{ files: Array<{ path: string }> }>;
const inPackage = new Set(packed[0].files.map((file) => file.path));

/** What is wrong with a link to `file` (a path in the package) and its `#anchor`, if anything. */
function problemOf(file: string, anchor: string | undefined): string | undefined {
	const found = file.endsWith('/')
		? [...inPackage].some((packedFile) => packedFile.startsWith(file))
		: inPackage.has(file);
	if (!found) return 'not in the package';
	if (anchor && file.endsWith('.md') && !anchors(read(file)).has(anchor)) return 'no such heading';
	return undefined;
}

/** What is wrong with each link of README.md, or of the node code (`[where, link, problem]`). */
function brokenLinks(where: string, links: string[]): string[] {
	const broken: string[] = [];
	for (const link of links) {
		const [target, anchor] = link.split('#');
		let problem: string | undefined;
		if (target.startsWith(FILES_URL)) problem = problemOf(target.slice(FILES_URL.length), anchor);
		else if (target === NPM_PAGE || target === '') {
			if (anchor && !anchors(read('README.md')).has(anchor)) problem = 'no such README heading';
		} else if (!/^https?:/.test(target)) {
			problem = 'relative: npm cannot open it (no repository field)';
		}
		if (problem) broken.push(`${where}: ${link}: ${problem}`);
	}
	return broken;
}

/** The files of the node code, as n8n loads them (descriptions, codex files). */
function nodeCodeFiles(folder: string): string[] {
	return fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
		const relative = path.posix.join(folder, entry.name);
		if (entry.isDirectory()) return nodeCodeFiles(relative);
		return /\.(ts|json)$/.test(entry.name) ? [relative] : [];
	});
}

test("README.md's links and pictures are in the package and open from the npm page", () => {
	expect(brokenLinks('README.md', allLinkTargets(read('README.md')))).toEqual([]);
});

test("the node code's links open the npm page's headings or the package's files", () => {
	const ours = new RegExp(`(${NPM_PAGE}|${FILES_URL})[^\\s'"\`<>)]*`, 'g');
	const broken = ['nodes', 'credentials'].flatMap(nodeCodeFiles).flatMap((file) =>
		brokenLinks(
			file,
			[...read(file).matchAll(ours)].map(([link]) => link),
		),
	);
	expect(broken).toEqual([]);
});

test('the pages in the package link to files the package has (they open where it is installed)', () => {
	const pages = [...inPackage].filter((file) => file.endsWith('.md') && file.startsWith('docs/'));
	expect(pages).toEqual(expect.arrayContaining(['docs/troubleshooting.md', 'docs/import-lead.md']));
	const broken = pages.flatMap((page) =>
		allLinkTargets(read(page))
			.filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link))
			.flatMap((link) => {
				const [file, anchor] = link.split('#');
				const target = file === '' ? page : path.posix.join(path.posix.dirname(page), file);
				const problem = problemOf(target, anchor);
				return problem ? [`${page}: ${link}: ${problem}`] : [];
			}),
	);
	expect(broken).toEqual([]);
});

test('a message asking to report it gives the package page, its real address', () => {
	expect(pkg.homepage).toBe(NPM_PAGE);
	expect(MAINTAINERS).toContain(pkg.homepage);
});
