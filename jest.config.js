/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	transform: {
		// Type checking is `npm run build`'s job; tests only need the code transpiled.
		'^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true, sourceMap: true } }],
	},
	testMatch: ['<rootDir>/test/**/*.test.ts'],
	// dist/ holds a copy of package.json (tsc includes it); keep jest's module map to the sources.
	modulePathIgnorePatterns: ['<rootDir>/dist/'],
	testTimeout: 60_000,
	setupFiles: ['<rootDir>/test/setup.ts'],
};
