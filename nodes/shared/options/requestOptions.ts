import type { INodeProperties } from 'n8n-workflow';

import type { RunContext } from '../context';
import type { RequestPolicy } from '../transport';
import { DEFAULT_REQUEST_POLICY } from '../transport';
import { RETRY_POLICY } from '../transport/retryPolicy';
import { nodeParameter } from './nodeParameter';

const { defaultMaxRetries } = RETRY_POLICY;
const defaultMaxRateLimitWaitSeconds = RETRY_POLICY.defaultMaxRateLimitWaitMs / 1000;
const defaultTimeoutSeconds = RETRY_POLICY.defaultTimeoutMs / 1000;
const serverErrorWaitSeconds = RETRY_POLICY.maxServerErrorRetryAfterMs / 1000;

/**
 * Options every operation offers, added to each operation's "Options" collection. Each
 * description says all its option does (test/engine/resilience.test.ts checks each sentence);
 * the defaults come from RETRY_POLICY, their only copy.
 */
const requestOptionFields: INodeProperties[] = [
	{
		displayName: 'Max Rate-Limit Wait (Seconds)',
		name: 'maxRateLimitWait',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: defaultMaxRateLimitWaitSeconds,
		description:
			"When the API answers 429 (rate limited), the node waits as long as it asks and retries. This caps the total time one request waits on 429 answers; past it the item fails with a clear error. When the API's rate-limit headers say the key has no requests left for longer than this and longer than two minutes (an hourly or daily limit spent), the item fails at once instead of waiting. It does not apply to other failures.",
	},
	{
		displayName: 'Max Retries',
		name: 'maxRetries',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 10 },
		default: defaultMaxRetries,
		description: `How many times to retry a request after a temporary failure (500, 502, 503, 504, 408, connection reset, timeout), with growing pauses in between. When the API asks to wait (Retry-After) up to ${serverErrorWaitSeconds} seconds, the node waits that long; if it asks for longer, the item fails at once, naming the wait. 429 answers do not count here.`,
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: defaultTimeoutSeconds,
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
