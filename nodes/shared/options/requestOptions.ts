import type { IExecuteFunctions, INodeProperties, IPollFunctions } from 'n8n-workflow';

import type { RequestPolicy } from '../transport';
import { DEFAULT_REQUEST_POLICY } from '../transport';
import { nodeParameter } from './nodeParameter';

/**
 * Options every operation offers, added to each operation's "Options" collection.
 * The defaults repeat DEFAULT_REQUEST_POLICY as literals: n8n reads them statically.
 */
const requestOptionFields: INodeProperties[] = [
	{
		displayName: 'Max Rate-Limit Wait (Seconds)',
		name: 'maxRateLimitWait',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 300,
		description:
			'When the API answers 429 (rate limited), the node waits as long as it asks and retries. This caps the total wait for one request; past it the item fails with a clear error.',
	},
	{
		displayName: 'Max Retries',
		name: 'maxRetries',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 10 },
		default: 5,
		description:
			'How many times to retry after a temporary failure (503, 502, 504, connection reset, timeout), with growing pauses in between',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 60,
		description: 'How long to wait for the API to answer one request before retrying it',
	},
];

/**
 * The "Options" collection of an operation: its own options plus the request options,
 * listed alphabetically like n8n's own nodes.
 */
export function optionsCollection(operationOptions: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...operationOptions, ...requestOptionFields].sort((a, b) =>
			a.displayName.localeCompare(b.displayName),
		),
	};
}

/** Reads the options of one item, or of the node when there are no items (polling trigger). */
export function readRequestPolicy(
	this: IExecuteFunctions | IPollFunctions,
	itemIndex?: number,
): RequestPolicy {
	const options = nodeParameter<{
		maxRateLimitWait?: number;
		maxRetries?: number;
		timeout?: number;
	}>(this, 'options', {}, itemIndex);
	const seconds = (value: unknown, fallbackMs: number) =>
		typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value * 1000 : fallbackMs;
	return {
		maxRateLimitWaitMs: seconds(
			options.maxRateLimitWait,
			DEFAULT_REQUEST_POLICY.maxRateLimitWaitMs,
		),
		maxRetries:
			typeof options.maxRetries === 'number' && options.maxRetries >= 0
				? Math.floor(options.maxRetries)
				: DEFAULT_REQUEST_POLICY.maxRetries,
		timeoutMs: Math.max(1000, seconds(options.timeout, DEFAULT_REQUEST_POLICY.timeoutMs)),
	};
}
