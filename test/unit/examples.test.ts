/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The workflows in examples/ use the nodes as a user adding them today gets them: the current
 * version of each node (what they run is checked in real n8n by test/e2e/examples.test.ts).
 * Users import them unchanged, so an example must not set a parameter or an option our
 * nodes no longer have: n8n keeps it in the workflow, ignores it, and the user believes it works
 * (the recording examples kept `maxCallsPerPoll` after 0.3.0 removed it). Every parameter of our
 * nodes in an example, and every key inside its collections (Options, Additional Fields, Poll
 * Times...), must be one the node's description shows for that node version and those settings.
 */
import * as fs from 'fs';
import * as path from 'path';

import { commonPollingParameters } from 'n8n-core/dist/nodes-loader/constants';
import type {
	INodeParameters,
	INodeProperties,
	INodePropertyCollection,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { LeadCallAccess } from '../../nodes/LeadCallAccess/LeadCallAccess.node';
import { LeadCallAccessTrigger } from '../../nodes/LeadCallAccessTrigger/LeadCallAccessTrigger.node';
import { NODE_TYPE, TRIGGER_TYPE } from '../../devkit/workflows';

const EXAMPLES_DIR = path.join(__dirname, '..', '..', 'examples');

/** What n8n adds to a node's description when it loads it (n8n-core's DirectoryLoader). */
function asLoaded(description: INodeTypeDescription): INodeTypeDescription {
	const polling = description.polling ? commonPollingParameters : [];
	return { ...description, properties: [...polling, ...description.properties] };
}

/** The fields n8n adds to the tool version of a node (convertNodeToAiTool, both n8n lines). */
const TOOL_FIELDS: INodeProperties[] = [
	{ displayName: 'Tool Description', name: 'descriptionType', type: 'options', default: 'auto' },
	{ displayName: 'Description', name: 'toolDescription', type: 'string', default: '' },
];

const node = asLoaded(new LeadCallAccess().description);
const descriptions: Record<string, INodeTypeDescription> = {
	[NODE_TYPE]: node,
	[`${NODE_TYPE}Tool`]: { ...node, properties: [...TOOL_FIELDS, ...node.properties] },
	[TRIGGER_TYPE]: asLoaded(new LeadCallAccessTrigger().description),
};

interface ExampleNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: INodeParameters;
}

const isObject = (value: unknown): value is INodeParameters =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The keys of `values` that no field of `fields` shown for this node takes, as paths
 * (`options.maxCallsPerPoll`), looking inside collections and fixed collections.
 */
function unknownKeys(
	fields: INodeProperties[],
	values: INodeParameters,
	example: ExampleNode,
	at: string,
): string[] {
	const description = descriptions[example.type];
	const shown = fields.filter((field) =>
		NodeHelpers.displayParameter(values, field, example, description, example.parameters),
	);
	return Object.entries(values).flatMap(([key, value]) => {
		const field = shown.find(({ name }) => name === key);
		if (field === undefined) return [`${at}${key}`];
		if (field.type === 'collection' && isObject(value)) {
			return unknownKeys(field.options as INodeProperties[], value, example, `${at}${key}.`);
		}
		if (field.type === 'fixedCollection' && isObject(value)) {
			return Object.entries(value).flatMap(([group, entries]) => {
				const option = (field.options as INodePropertyCollection[]).find((o) => o.name === group);
				if (option === undefined) return [`${at}${key}.${group}`];
				return [entries]
					.flat()
					.flatMap((entry) =>
						isObject(entry)
							? unknownKeys(option.values, entry, example, `${at}${key}.${group}.`)
							: [],
					);
			});
		}
		return [];
	});
}

const examples = fs
	.readdirSync(EXAMPLES_DIR)
	.filter((file) => file.endsWith('.json'))
	.map((file) => {
		const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as {
			nodes: ExampleNode[];
		};
		return { file, ours: workflow.nodes.filter((example) => example.type in descriptions) };
	});
const ours = examples.flatMap(({ file, ours }) => ours.map((example) => ({ file, example })));

const currentVersion = ({ version, defaultVersion }: INodeTypeDescription) =>
	defaultVersion ?? (Array.isArray(version) ? Math.max(...version) : version);

test.each(examples)('$file uses the current version of each Lead & Call Access node', (example) => {
	expect(example.ours.length).toBeGreaterThan(0);
	// The tool n8n derives from the node (AI Agent, MCP Server) has the node's versions.
	expect(example.ours.map((node) => [node.name, node.typeVersion])).toEqual(
		example.ours.map((node) => [node.name, currentVersion(descriptions[node.type])]),
	);
});

test('the examples use our nodes (else the test below checks nothing)', () => {
	expect(ours.length).toBeGreaterThanOrEqual(8);
});

test.each(ours.map(({ file, example }) => [file, example.name, example]))(
	'%s: "%s" sets only parameters and options its node has',
	(_file, _name, example) => {
		const { properties } = descriptions[example.type];
		const stale = unknownKeys(properties, example.parameters, example, '');
		const version = `${example.type.split('.').pop()} version ${example.typeVersion}`;
		expect(stale.map((key) => `${key}: ${version} has no such parameter here; remove it`)).toEqual(
			[],
		);
	},
);
