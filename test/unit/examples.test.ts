/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The workflows in examples/ use the nodes as a user adding them today gets them: the current
 * version of each node (what they run is checked in real n8n by test/e2e/examples.test.ts).
 */
import * as fs from 'fs';
import * as path from 'path';

import type { INodeTypeDescription } from 'n8n-workflow';

import { LeadCallAccess } from '../../nodes/LeadCallAccess/LeadCallAccess.node';
import { LeadCallAccessTrigger } from '../../nodes/LeadCallAccessTrigger/LeadCallAccessTrigger.node';
import { NODE_TYPE, TRIGGER_TYPE } from '../../devkit/workflows';

const EXAMPLES_DIR = path.join(__dirname, '..', '..', 'examples');

const currentVersion = ({ version, defaultVersion }: INodeTypeDescription) =>
	defaultVersion ?? (Array.isArray(version) ? Math.max(...version) : version);

const current: Record<string, number> = {
	[NODE_TYPE]: currentVersion(new LeadCallAccess().description),
	// The tool n8n derives from the node (AI Agent, MCP Server) has the node's versions.
	[`${NODE_TYPE}Tool`]: currentVersion(new LeadCallAccess().description),
	[TRIGGER_TYPE]: currentVersion(new LeadCallAccessTrigger().description),
};

const examples = fs.readdirSync(EXAMPLES_DIR).filter((file) => file.endsWith('.json'));

test.each(examples)('%s uses the current version of each Lead & Call Access node', (file) => {
	const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as {
		nodes: Array<{ name: string; type: string; typeVersion: number }>;
	};
	const ours = workflow.nodes.filter((node) => node.type in current);
	expect(ours.length).toBeGreaterThan(0);
	expect(ours.map((node) => [node.name, node.typeVersion])).toEqual(
		ours.map((node) => [node.name, current[node.type]]),
	);
});
