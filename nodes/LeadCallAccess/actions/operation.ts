import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ApiOperation } from '../../shared/transport';

/**
 * Everything about one operation, in its own `<op>.operation.ts`: the node's Resource and
 * Operation lists, the canvas subtitle, the router and the scope named in its errors are all
 * made from these, so an operation is written down once.
 */
export interface OperationDeclaration {
	/** The Operation parameter's value, saved in workflows: never rename it. */
	value: string;
	/** The Operation list's label, e.g. "Get Many". */
	name: string;
	description: string;
	/** What the operation does, e.g. "Get many calls": the tool name AI agents see and the canvas subtitle. */
	action: string;
	/** The scope and wording its requests' errors use. */
	api: ApiOperation;
	/** Its fields, shown for this resource and operation only. */
	properties: INodeProperties[];
	/** Runs the operation for one input item; the router owns the item loop and error items. */
	execute: (this: IExecuteFunctions, itemIndex: number) => Promise<INodeExecutionData[]>;
}

export interface ResourceDeclaration {
	/** The Resource parameter's value, saved in workflows: never rename it. */
	value: string;
	/** The Resource list's label. */
	name: string;
	/**
	 * The first is the Operation parameter's default: add new operations after it, or saved
	 * workflows that rely on the default would change operation.
	 */
	operations: OperationDeclaration[];
}

/** The Operation parameter of one resource, followed by each operation's fields. */
export function resourceProperties(resource: ResourceDeclaration): INodeProperties[] {
	const { value, operations } = resource;
	const defaultOperation = operations[0].value;
	const operation: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [value] } },
		options: [...operations]
			.sort((a, b) => a.name.localeCompare(b.name))
			.map(({ name, value, description, action }) => ({ name, value, description, action })),
		default: defaultOperation,
	};
	const fields = operations.map((declared) =>
		updateDisplayOptions(
			{ show: { resource: [value], operation: [declared.value] } },
			declared.properties,
		),
	);
	return [operation, ...fields.flat()];
}

/** The key of an operation in the subtitle's map: operation values repeat across resources. */
const subtitleKey = (resource: string, operation: string) => `${resource}:${operation}`;

/** The canvas subtitle: the chosen operation's action ("Get many calls"), not its internal value. */
export function subtitleOf(resources: ResourceDeclaration[]): string {
	const actions: Record<string, string> = {};
	for (const resource of resources) {
		for (const operation of resource.operations) {
			actions[subtitleKey(resource.value, operation.value)] = operation.action;
		}
	}
	return `={{ ${JSON.stringify(actions)}[$parameter["resource"] + ":" + $parameter["operation"]] }}`;
}

/** The declaration the router runs for the node's Resource and Operation, if there is one. */
export function findOperation(
	resources: ResourceDeclaration[],
	resource: string,
	operation: string,
): OperationDeclaration | undefined {
	const declared = resources.find(({ value }) => value === resource);
	return declared?.operations.find(({ value }) => value === operation);
}
