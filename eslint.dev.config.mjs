/**
 * The dev code's own lint: test/, bench/ and devkit/ run in Node.js, never inside n8n, and are not
 * in the package. `npm run lint` runs it after n8n's lint (`n8n-node lint`, which uses the unchanged
 * eslint.config.mjs that n8n's verification requires, over the whole repository).
 *
 * n8n's config has no place for an exception, so each dev file turns off the node rules it breaks
 * (process, timers, fs, console...) in a first-line comment. The plugin is registered here, with
 * none of its rules on, only so that ESLint knows the rules those comments name.
 */
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['test/reliability/.results/**'] },
	{
		files: ['test/**/*.ts', 'bench/**/*.ts', 'devkit/**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		plugins: { '@n8n/community-nodes': n8nCommunityNodesPlugin },
		// The first-line comments name n8n's rules, which are off here: not "unused" in this run.
		linterOptions: { reportUnusedDisableDirectives: 'off' },
		rules: {
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
			],
		},
	},
	{
		// Tests report through jest only: a passing `npm test` prints nothing else.
		files: ['test/**/*.test.ts'],
		rules: { 'no-console': 'error' },
	},
);
