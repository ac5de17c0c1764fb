/**
 * `npm run test:ui`: the n8n editor in Chromium (test/ui), with the package installed from its
 * tarball into a real n8n (see devkit/n8n).
 * @type {import('jest').Config}
 */
const base = require('./jest.config');

module.exports = {
	...base,
	testMatch: ['<rootDir>/test/ui/**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	// Its assertions are Playwright's `waitFor` (a missing element fails the test), not `expect`.
	setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
	maxWorkers: 1,
	testTimeout: 300_000,
};
