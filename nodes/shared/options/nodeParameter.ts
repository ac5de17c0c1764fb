import type { IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

import type { RunContext } from '../context';

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
