/**
 * `npm run test:e2e`: the package, packed and installed into real n8n processes (see devkit/n8n).
 * @type {import('jest').Config}
 */
const base = require('./jest.config');

module.exports = {
	...base,
	testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	// One n8n at a time: each suite starts its own processes, and the machine has two cores.
	maxWorkers: 1,
	testTimeout: 300_000,
};
