/**
 * `npm test`: the hermetic suites (unit, engine, emulator, reliability on the engine).
 * No n8n download, no external service; the real-n8n suites run with `npm run test:e2e`.
 * @type {import('jest').Config}
 */
module.exports = {
	testEnvironment: 'node',
	transform: {
		// Type checking is `npm run build`'s job; tests only need the code transpiled.
		'^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true, sourceMap: true } }],
	},
	testMatch: ['<rootDir>/test/**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/', '<rootDir>/test/ui/'],
	// dist/ holds a copy of package.json (tsc includes it); keep jest's module map to the sources.
	modulePathIgnorePatterns: ['<rootDir>/dist/'],
	// Most of these suites' time is spent waiting out short rate windows, not on the CPU: two
	// workers even on a 2-CPU machine (jest's default there is one) halve the run.
	maxWorkers: Math.max(2, require('os').cpus().length - 1),
	testTimeout: 60_000,
	// After the environment, so the setup can remove the test file's user folder when it ends.
	setupFilesAfterEnv: ['<rootDir>/test/setup.ts', '<rootDir>/test/mustAssert.ts'],
};
