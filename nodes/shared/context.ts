import type {
	IDataObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';

/**
 * What the nodes get from n8n: the contexts they run in, their parameters, and JSON values.
 */

/**
 * The n8n contexts that run the node: the action node (item by item) and the polling trigger.
 * They read the node's parameters and store files in n8n's binary data store.
 */
export type RunContext = IExecuteFunctions | IPollFunctions;

/**
 * The contexts that call the API: those that run the node, and the editor loading a list
 * (the Call field's "From List"). Requests use only what all of them have: the node, its
 * credential and n8n's HTTP helpers.
 */
export type RequestContext = RunContext | ILoadOptionsFunctions;

/**
 * A parameter of the item being processed (action node) or of the node itself (polling
 * trigger: it has no input items). The two contexts spell `getNodeParameter` differently.
 */
export function nodeParameter<T>(
	context: RunContext,
	name: string,
	fallback: T,
	itemIndex?: number,
): T {
	return (
		itemIndex === undefined
			? (context as IPollFunctions).getNodeParameter(name, fallback)
			: (context as IExecuteFunctions).getNodeParameter(name, itemIndex, fallback)
	) as T;
}

/** A JSON object (not null, not a list): the shape the spec leaves open for most bodies. */
export function isJsonObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
