import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const legacyRules = (name) => n8nNodesBase.configs[name].rules;

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', 'test/**', '**/*.js', '**/*.mjs'] },
	{
		files: ['package.json'],
		languageOptions: { parser: tseslint.parser },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: legacyRules('community'),
	},
	{
		files: ['credentials/**/*.ts'],
		languageOptions: { parser: tseslint.parser },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...legacyRules('credentials'),
			// Our documentation lives in the package README on npm, not on docs.n8n.io.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		languageOptions: { parser: tseslint.parser },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...legacyRules('nodes'),
			// Superseded by @n8n/community-nodes/node-connection-type-literal (NodeConnectionTypes).
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		...n8nCommunityNodesPlugin.configs.recommended,
	},
);
