/**
 * One lint for the whole repository (`npm run lint`, and `eslint .` as `n8n-node lint` runs it).
 *
 * Shipped code (nodes/, credentials/, package.json) gets exactly the rules of `@n8n/node-cli`'s
 * default config, which includes the community-node rules n8n's package scanner applies.
 * `n8n.strict` is false in package.json only because strict mode demands this file be the
 * unmodified template, which would lint the dev kit with node rules (no process, no fs).
 *
 * Dev code (test/, bench/, devkit/) runs in Node, not in n8n: typescript-eslint's recommended
 * rules, with unused arguments allowed when prefixed with _ (test doubles implement
 * interfaces they only partly use).
 */
import js from '@eslint/js';
import { config as n8nNodeConfig } from '@n8n/node-cli/eslint';
import tseslint from 'typescript-eslint';

const devCode = ['test/**', 'bench/**', 'devkit/**'];

const isGlobalIgnore = (entry) =>
	'ignores' in entry && Object.keys(entry).every((key) => key === 'ignores' || key === 'name');

export default tseslint.config(
	{ ignores: ['dist/**', 'coverage/**', 'test/reliability/.results/**'] },
	...n8nNodeConfig.map((entry) =>
		isGlobalIgnore(entry) ? entry : { ...entry, ignores: [...(entry.ignores ?? []), ...devCode] },
	),
	{
		files: devCode.map((dir) => `${dir}/*.ts`),
		extends: [js.configs.recommended, tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
			],
		},
	},
);
