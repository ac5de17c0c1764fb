/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	transform: {
		// Type checking is `npm run build`'s job; tests only need the code transpiled.
		'^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true, sourceMap: true } }],
	},
	testMatch: ['<rootDir>/test/**/*.test.ts'],
	testTimeout: 60_000,
	setupFiles: ['<rootDir>/test/setup.ts'],
};
