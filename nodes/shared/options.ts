/**
 * The "Options" collection every operation shows (Import Lead, Get Many Calls, Get Recording,
 * the trigger): each operation's own options plus the request options, whose limits the retry
 * policy (`transport/retry.ts`) applies and whose defaults it holds.
 */
import type { INodeProperties } from 'n8n-workflow';

import type { RunContext } from './context';
import { nodeParameter } from './context';
import type { RequestPolicy } from './transport/retry';
import { DEFAULT_REQUEST_POLICY, RETRY_POLICY } from './transport/retry';

const { defaultMaxRetries } = RETRY_POLICY;
const defaultMaxRateLimitWaitSeconds = RETRY_POLICY.defaultMaxRateLimitWaitMs / 1000;
const defaultTimeoutSeconds = RETRY_POLICY.defaultTimeoutMs / 1000;
const serverErrorWaitSeconds = RETRY_POLICY.maxServerErrorRetryAfterMs / 1000;

/**
 * Options every operation offers, added to each operation's "Options" collection. Each
 * description says all its option does.
 */
const requestOptionFields: INodeProperties[] = [
	{
		displayName: 'Max Rate-Limit Wait (Seconds)',
		name: 'maxRateLimitWait',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: defaultMaxRateLimitWaitSeconds,
		description:
			'How long one request may wait in all when the service says to slow down (its rate limit). Past this the item fails and says so.',
	},
	{
		displayName: 'Max Retries',
		name: 'maxRetries',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 10 },
		default: defaultMaxRetries,
		description: `How many times to try again when the service is briefly down or the connection drops, waiting longer each time (up to ${serverErrorWaitSeconds} seconds if the service asks)`,
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: defaultTimeoutSeconds,
		description: 'How long to wait for the service to answer one request before trying again',
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
export function readRequestPolicy(this: RunContext, itemIndex?: number): RequestPolicy {
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
