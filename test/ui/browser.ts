/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Chromium for the editor test: Debian's package (installed with apt-get when missing), driven by
 * playwright-core. No browser is ever downloaded by npm or Playwright.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';

import { REPO_DIR } from '../../devkit/n8n';
import { aptInstall } from '../../devkit/n8n/process';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** CHROMIUM_PATH, else Debian's chromium, installed with apt-get when it is missing. */
export async function launchChromium(log: (message: string) => void): Promise<Browser> {
	const configured = process.env.CHROMIUM_PATH;
	if (!configured && !fs.existsSync(DEBIAN_CHROMIUM)) {
		log('chromium is missing: apt-get install -y chromium');
		await aptInstall(['chromium']);
	}
	// Root in a container: Chromium's sandbox needs user namespaces it may not get.
	const args = ['--no-sandbox', '--disable-dev-shm-usage'];
	return await chromium.launch({ executablePath: configured || DEBIAN_CHROMIUM, args });
}

/** Untracked: ordinary screenshots, and what a failed step leaves to look at. */
export const scratchDir = () => path.join(os.tmpdir(), 'lead-call-access-ui');

/**
 * Where screenshots go: docs/images/ (tracked, shown in the README) only when
 * LCA_UPDATE_SCREENSHOTS=1, so ordinary and CI runs never modify tracked files.
 */
export const screenshotDir = () =>
	process.env.LCA_UPDATE_SCREENSHOTS === '1' ? path.join(REPO_DIR, 'docs', 'images') : scratchDir();

/** A PNG of the viewport (1280×800). */
export async function screenshot(page: Page, name: string, dir = screenshotDir()): Promise<string> {
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, `${name}.png`);
	await page.screenshot({ path: file });
	return file;
}
