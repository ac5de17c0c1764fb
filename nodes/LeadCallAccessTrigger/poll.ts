import type {
	IBinaryData,
	IDataObject,
	INode,
	INodeExecutionData,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { readQueryParameters } from '../shared/options/queryParameters';
import { readRequestPolicy } from '../shared/options/requestOptions';
import { MAX_PAGE_SIZE, iterateCallPages } from '../shared/calls/callPages';
import { downloadRecording, fetchRecordingInfo } from '../shared/recording';
import type { RequestPolicy } from '../shared/transport';
import type { TrackedCall } from './calls';
import { CallListError, oldestFirst } from './calls';
import type { Position } from './position';
import { readPosition, recordCalls, usablePosition, writePosition } from './position';
import { parseSince } from './time';
import { findNewCalls, findStartCalls } from './walk';

export const DEFAULT_MAX_CALLS_PER_POLL = 100;

/** A manual test fetches a few calls rather than one, to pick the newest by creation time. */
const TEST_PAGE_SIZE = 10;

interface TriggerSettings {
	query: IDataObject;
	queryKey: string;
	policy: RequestPolicy;
	/** "Calls Since" (ms), used only when the trigger starts. */
	since?: number;
	/** The binary field to put each recording in; undefined when not downloading. */
	binaryPropertyName?: string;
	maxCalls: number;
}

function readSettings(this: IPollFunctions): TriggerSettings {
	const options = this.getNodeParameter('options', {}) as {
		callsSince?: unknown;
		maxCallsPerPoll?: number;
	};
	const query = readQueryParameters.call(this);
	const rawSince = options.callsSince;
	let since: number | undefined;
	if (rawSince !== undefined && rawSince !== null && rawSince !== '') {
		since = parseSince(rawSince, this.getTimezone());
		if (since === undefined) {
			throw new NodeOperationError(
				this.getNode(),
				`Calls Since is not a date and time: "${String(rawSince)}"`,
			);
		}
	}
	const download = this.getNodeParameter('downloadRecording', false) as boolean;
	const maxCalls = Number(options.maxCallsPerPoll ?? DEFAULT_MAX_CALLS_PER_POLL);
	return {
		query,
		queryKey: JSON.stringify(Object.entries(query).sort(([a], [b]) => a.localeCompare(b))),
		policy: readRequestPolicy.call(this),
		since,
		binaryPropertyName: download
			? String(this.getNodeParameter('binaryPropertyName', 'data') || 'data')
			: undefined,
		maxCalls:
			Number.isFinite(maxCalls) && maxCalls >= 1
				? Math.floor(maxCalls)
				: DEFAULT_MAX_CALLS_PER_POLL,
	};
}

function pages(this: IPollFunctions, settings: TriggerSettings, pageSize = MAX_PAGE_SIZE) {
	return iterateCallPages.call(this, {
		query: settings.query,
		pageSize: () => pageSize,
		policy: settings.policy,
	});
}

/** The call's recording, or undefined when the API has none for it (404: a missed call, say). */
async function recordingOf(
	this: IPollFunctions,
	callId: string,
	policy: RequestPolicy,
): Promise<IBinaryData | undefined> {
	let info;
	try {
		info = await fetchRecordingInfo.call(this, callId, policy);
	} catch (error) {
		// Any other failure fails the poll, which keeps the position: the next poll tries again.
		if (error instanceof NodeApiError && error.httpCode === '404') return undefined;
		throw toNodeError(this.getNode(), error);
	}
	return await downloadRecording.call(this, callId, info, policy);
}

async function toItems(
	this: IPollFunctions,
	calls: TrackedCall[],
	settings: TriggerSettings,
): Promise<INodeExecutionData[]> {
	const items: INodeExecutionData[] = [];
	// One at a time, in emitting order: requests are paced per key anyway.
	for (const call of calls) {
		const item: INodeExecutionData = { json: call.json };
		if (settings.binaryPropertyName !== undefined) {
			const binary = await recordingOf.call(this, call.id, settings.policy);
			if (binary) item.binary = { [settings.binaryPropertyName]: binary };
		}
		items.push(item);
	}
	return items;
}

/** "Fetch Test Event": the most recent call, so fields can be mapped; the position is left alone. */
async function latestCall(
	this: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	const calls = await findStartCalls(firstPageOnly(pages.call(this, settings, TEST_PAGE_SIZE)));
	const newest = oldestFirst(calls).pop();
	return newest === undefined ? null : [await toItems.call(this, [newest], settings)];
}

async function* firstPageOnly<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
	for await (const page of source) {
		yield page;
		return;
	}
}

/**
 * One poll. The new position is computed aside and written only once everything (listing and
 * downloads) succeeded: a poll that fails leaves the old one, and the next poll resumes there.
 */
async function pollOnce(
	this: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	const staticData = this.getWorkflowStaticData('node');
	const stored = usablePosition(readPosition(staticData), settings.queryKey);
	let emitted: TrackedCall[] = [];
	let position: Position;
	if (stored === undefined && settings.since === undefined) {
		// First activation: remember where the list stands, emit nothing.
		const start: Position = { seen: [], queryKey: settings.queryKey };
		position = recordCalls(start, await findStartCalls(pages.call(this, settings)));
	} else {
		// Later polls, or a first one asked to start from "Calls Since".
		const from = stored ?? { seen: [], newestAt: settings.since, queryKey: settings.queryKey };
		const fresh = await findNewCalls(pages.call(this, settings), from, {
			requireTimes: stored === undefined,
		});
		// The oldest first; past the cap the newer ones stay unhandled for the next polls.
		emitted = oldestFirst(fresh).slice(0, settings.maxCalls);
		position = recordCalls(from, emitted);
	}
	const items = await toItems.call(this, emitted, settings);
	writePosition(staticData, position);
	return items.length > 0 ? [items] : null;
}

/** What n8n shows for a failed poll: node errors as they are, list problems with their advice. */
function toNodeError(node: INode, error: unknown): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof CallListError) {
		return new NodeOperationError(node, error.message, { description: error.description });
	}
	return new NodeOperationError(node, error as Error);
}

/**
 * Polls of one trigger node that run at the same time (n8n starts the next one on schedule
 * even if the last is still paging) would read the same position and emit the same calls.
 */
const pollsInFlight = new Set<string>();

export async function pollCalls(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	try {
		const settings = readSettings.call(this);
		if (this.getMode() === 'manual') return await latestCall.call(this, settings);

		const key = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
		if (pollsInFlight.has(key)) return null; // the running poll will emit what is new
		pollsInFlight.add(key);
		try {
			return await pollOnce.call(this, settings);
		} finally {
			pollsInFlight.delete(key);
		}
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}
}
