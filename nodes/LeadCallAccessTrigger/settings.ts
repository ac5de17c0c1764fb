import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { readQueryParameters } from '../shared/calls/queryParameters';
import { readRequestPolicy } from '../shared/options';
import type { RequestPolicy } from '../shared/transport';
import { operationError } from '../shared/errors';
import type { ListOrder } from './calls';
import { parseSince } from './timeZone';

/**
 * Calls per execution: each execution holds its calls' files until it ends, so this bounds the
 * memory a check takes on n8n 1.x, which keeps files in memory (20 recordings of a few MB).
 */
export const DEFAULT_CALLS_PER_EXECUTION = 20;

/** Wait for Recording's default: recordings are usually ready within a few minutes. */
export const DEFAULT_RECORDING_WAIT_MINUTES = 10;

/**
 * Give Up After's default: a recording the service says is still being processed is asked for
 * at each check for a day (a busy evening can take hours) before its call comes without it, and
 * a call whose execution failed is delivered again for a day (a full disk found in the morning).
 */
export const DEFAULT_PROCESSING_LIMIT_HOURS = 24;

/**
 * Look Back's default: a call listed up to two hours after calls that started later still comes.
 * Services that stamp a call with its start list it once it ended: two hours covers most calls.
 */
export const DEFAULT_LOOK_BACK_HOURS = 2;

export interface TriggerSettings {
	query: IDataObject;
	queryKey: string;
	policy: RequestPolicy;
	/** "Calls Since" (ms), used only when the trigger starts. */
	since?: number;
	/** The binary field to put each recording in; undefined when not downloading. */
	binaryPropertyName?: string;
	/** "Wait for Recording": how long a call may be held back for its recording (ms). */
	recordingWaitMs: number;
	/**
	 * "Give Up After": how long a call whose recording the service says is still being processed
	 * stays held, asked again at each check (ms; at least recordingWaitMs), and how long a call
	 * whose execution failed is delivered again.
	 */
	processingLimitMs: number;
	/** "Give Up After" itself: how long a call whose execution failed is delivered again (ms). */
	giveUpMs: number;
	/** "Deliver Failed Calls Again": a call whose execution failed is due again. */
	retryFailed: boolean;
	/** "Look Back": how far before the newest delivered call a call listed late still comes (ms). */
	lookBackMs: number;
	/** Time between two scheduled checks when Poll Times say it plainly (ms). */
	pollGapMs?: number;
	/** "Add Summary Item": end a check that delivered calls with one item counting them. */
	summaryItem: boolean;
	/** The workflow's time zone: a call's date (`callDate`) is the date there. */
	timeZone: string;
	/** "Keep Call Order": hold back the calls behind a held call too. */
	keepCallOrder: boolean;
	/** "Calls per Execution": the most calls one execution starts with. */
	callsPerExecution: number;
	/**
	 * Whether a check waits for the recordings still being processed itself, rather than leave
	 * them to the next checks: when the next check comes after Wait for Recording has passed.
	 */
	waitInCheck: boolean;
	/** "List Order"; undefined for Detect. */
	order?: ListOrder;
}

export function readSettings(this: IPollFunctions): TriggerSettings {
	const options = this.getNodeParameter('options', {}) as {
		callsSince?: unknown;
		callsPerExecution?: number;
		listOrder?: string;
		waitForRecording?: number;
		processingLimitHours?: number;
		keepCallOrder?: boolean;
		summaryItem?: boolean;
		retryFailedCalls?: boolean;
		lookBackHours?: number;
	};
	const query = readQueryParameters.call(this);
	const rawSince = options.callsSince;
	let since: number | undefined;
	if (rawSince !== undefined && rawSince !== null && rawSince !== '') {
		since = parseSince(rawSince, this.getTimezone());
		if (since === undefined) {
			throw operationError(
				this.getNode(),
				`Calls Since is not a date and time: "${String(rawSince)}"`,
			);
		}
	}
	const download = this.getNodeParameter('downloadRecording', false) as boolean;
	const perExecution = Number(options.callsPerExecution ?? DEFAULT_CALLS_PER_EXECUTION);
	const order = options.listOrder;
	const waitMinutes = Number(options.waitForRecording ?? DEFAULT_RECORDING_WAIT_MINUTES);
	const recordingWaitMs =
		(Number.isFinite(waitMinutes) && waitMinutes >= 0
			? waitMinutes
			: DEFAULT_RECORDING_WAIT_MINUTES) * 60_000;
	const limitHours = Number(options.processingLimitHours ?? DEFAULT_PROCESSING_LIMIT_HOURS);
	const processingLimitMs =
		(Number.isFinite(limitHours) && limitHours >= 0 ? limitHours : DEFAULT_PROCESSING_LIMIT_HOURS) *
		3_600_000;
	const gapMs = pollGapMs(this.getNodeParameter('pollTimes', {}));
	const lookBackHours = Number(options.lookBackHours ?? DEFAULT_LOOK_BACK_HOURS);
	return {
		query,
		queryKey: JSON.stringify(Object.entries(query).sort(([a], [b]) => a.localeCompare(b))),
		policy: readRequestPolicy.call(this),
		since,
		binaryPropertyName: download
			? String(this.getNodeParameter('binaryPropertyName', 'data') || 'data')
			: undefined,
		recordingWaitMs,
		processingLimitMs: Math.max(processingLimitMs, recordingWaitMs),
		giveUpMs: processingLimitMs,
		retryFailed: options.retryFailedCalls !== false,
		lookBackMs:
			(Number.isFinite(lookBackHours) && lookBackHours >= 0
				? lookBackHours
				: DEFAULT_LOOK_BACK_HOURS) * 3_600_000,
		pollGapMs: gapMs,
		summaryItem: options.summaryItem === true,
		timeZone: this.getTimezone(),
		keepCallOrder: options.keepCallOrder === true,
		callsPerExecution:
			Number.isFinite(perExecution) && perExecution >= 1
				? Math.floor(perExecution)
				: DEFAULT_CALLS_PER_EXECUTION,
		waitInCheck: download && gapMs !== undefined && gapMs > recordingWaitMs,
		order: order === 'newest' || order === 'oldest' ? order : undefined,
	};
}

/**
 * How long until the next check, from the trigger's Poll Times (n8n's own `pollTimes` field),
 * when the schedule says so plainly: a single entry of a fixed mode (every hour, day, week,
 * month, or every X minutes or hours). Undefined when it cannot tell: several entries, a custom
 * cron expression, or no Poll Times at all (when the trigger is run outside a schedule).
 */

const MINUTE_MS = 60_000;

const FIXED_GAPS: Record<string, number> = {
	everyMinute: MINUTE_MS,
	everyHour: 60 * MINUTE_MS,
	everyDay: 24 * 60 * MINUTE_MS,
	everyWeek: 7 * 24 * 60 * MINUTE_MS,
	// The shortest month: the gap is at least this long.
	everyMonth: 28 * 24 * 60 * MINUTE_MS,
};

const UNITS: Record<string, number> = { minutes: MINUTE_MS, hours: 60 * MINUTE_MS };

function pollGapMs(pollTimes: unknown): number | undefined {
	const items = (pollTimes as { item?: unknown } | undefined)?.item;
	if (!Array.isArray(items) || items.length !== 1) return undefined;
	const item = items[0] as IDataObject;
	const mode = String(item.mode ?? '');
	if (mode in FIXED_GAPS) return FIXED_GAPS[mode];
	if (mode !== 'everyX') return undefined;
	const value = Number(item.value);
	const unit = UNITS[String(item.unit ?? '')];
	return unit !== undefined && Number.isFinite(value) && value > 0 ? value * unit : undefined;
}
