/**
 * How the Markdown checks read a page: its heading anchors and its links, as GitHub and npm
 * make them. Used by test/unit/contributing.test.ts (the tree) and test/unit/packageDocs.test.ts
 * (the tarball).
 */

export const FENCED = /^(`{3,}|~{3,})[^\n]*\n([\s\S]*?)^\1[ \t]*$/gm;

/** GitHub's anchors for the headings outside code blocks (a repeated one gets -1, -2...). */
export function anchors(markdown: string): Set<string> {
	const found = new Set<string>();
	for (const [, title] of markdown.replace(FENCED, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
		const slug = title
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, '')
			.replace(/\s/g, '-');
		let anchor = slug;
		for (let n = 1; found.has(anchor); n++) anchor = `${slug}-${n}`;
		found.add(anchor);
	}
	return found;
}

/** Every link and image target outside code blocks: inline, and reference definitions. */
export function allLinkTargets(markdown: string): string[] {
	const prose = markdown.replace(FENCED, '');
	const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
	const definitions = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)];
	return [...inline, ...definitions].map(([, target]) => target);
}
