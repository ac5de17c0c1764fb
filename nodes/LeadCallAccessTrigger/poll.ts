import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { CallPage } from '../shared/calls/callPages';
import { toNodeError } from '../shared/errors';
import type { ListOrder, TrackedCall } from './calls';
import { CallListError, chronological, timeOrder } from './calls';
import type { PagesFrom } from './callsList';
import {
	HEAD_SIZE,
	findNewCalls,
	findStartCalls,
	findTailCalls,
	pagesOf,
	readToEnd,
	unlessStale,
	withFirstPage,
} from './callsList';
import type { Found } from './deliver';
import { deliver, takeCallsUntil } from './deliver';
import { itemFor } from './item';
import type { Position } from './position';
import { recordCalls, usablePosition } from './position';
import { readPosition } from './storedPosition';
import type { TriggerSettings } from './settings';
import { readSettings } from './settings';

/**
 * One poll. The list's order decides the reading (callsList.ts): a newest-first list is read
 * from its first page until the position, an oldest-first one from the page where the last poll
 * stopped. With List Order on Detect the order comes from the calls' times, else from
 * where new ids appear between polls, and is remembered once known.
 */

/**
 * Without times, new ids at the head of the first page mean newest first. New ids further down
 * a first page that is not also the last cannot be placed: the trigger says so rather than
 * guess (and perhaps never emit them).
 */
function orderFromIds(first: TrackedCall[], from: Position): ListOrder | undefined {
	const seen = new Set(from.seen);
	if (first.length === 0 || seen.size === 0) return undefined;
	if (!seen.has(first[0].id)) return 'newest';
	const inside = first.find((call) => !seen.has(call.id));
	if (inside !== undefined && from.tail?.request !== undefined) {
		throw new CallListError(
			`The trigger cannot tell where new calls appear in the calls list: call ${inside.id} is new but listed inside the first page, and the calls carry no time the trigger recognises`,
			'Set Options › List Order to Newest First or Oldest First, or add a sort Query Parameter (for example sort = -created_at) so the list has a steady order.',
		);
	}
	return undefined;
}

/**
 * First activation: remember where the list stands, emit nothing. Calls created before the
 * newest one listed now are never new (`floor`), however late they are listed.
 */
async function start(pages: PagesFrom, settings: TriggerSettings): Promise<Position> {
	const position = await startPosition(pages, settings);
	return { ...position, floor: position.newestAt };
}

async function startPosition(pages: PagesFrom, settings: TriggerSettings): Promise<Position> {
	const { first, pages: all } = await withFirstPage(pages(undefined));
	const known = settings.order ?? timeOrder(first);
	const empty: Position = {
		seen: [],
		queryKey: settings.queryKey,
		lookBackMs: settings.lookBackMs,
	};
	if (known === 'newest') {
		const calls = await findStartCalls(all);
		const head = calls.slice(0, HEAD_SIZE).map((call) => call.id);
		return recordCalls({ ...empty, order: known, head }, chronological(calls, 'newest'));
	}
	// Oldest first, or not known yet: new calls may come at the end, so find it.
	const { calls, tail } = await readToEnd(all);
	const order = known ?? timeOrder(calls);
	const newestAt = Math.max(...calls.map((call) => call.at ?? -Infinity));
	const ends = new Set([...first.map((call) => call.id), ...tail.ids]);
	const remembered = calls.filter((call) => ends.has(call.id) || call.at === newestAt);
	const listed = order === 'newest' ? [...remembered].reverse() : remembered;
	return recordCalls({ ...empty, order, tail: order === 'newest' ? undefined : tail }, listed);
}

/**
 * Later polls, or a first one asked to start from "Calls Since": every new call, however many,
 * oldest first, and the position once the first n of them are handled.
 */
async function findNew(
	pages: PagesFrom,
	settings: TriggerSettings,
	from: Position,
	requireTimes: boolean,
): Promise<Found> {
	let order = settings.order ?? from.order;
	let head: AsyncIterable<CallPage> = pages(undefined);
	if (order === undefined) {
		const { first, pages: all } = await withFirstPage(head);
		order = timeOrder(first) ?? orderFromIds(first, from);
		head = all;
	}
	if (order === 'newest') {
		const { emitted, headAfter } = await findNewCalls(head, from, { requireTimes });
		const listed = { ...from, order, tail: undefined };
		return {
			calls: emitted,
			after: (handled) =>
				recordCalls({ ...listed, head: headAfter(handled) }, emitted.slice(0, handled)),
		};
	}
	const { emitted, tailAfter } = await findTailCalls(pages, from, { requireTimes });
	// New calls found at the end of a list whose order was unknown: it is oldest first.
	if (order === undefined && emitted.length > 0 && from.seen.length > 0) order = 'oldest';
	const known = order;
	return {
		calls: emitted,
		after: (handled) =>
			recordCalls(
				{ ...from, order: known, tail: tailAfter(handled), head: undefined },
				emitted.slice(0, handled),
			),
	};
}

/**
 * A check: what is new since the position (the start of the list on the first activation),
 * delivered in executions (deliver.ts). A check that fails before its first execution leaves
 * the position as it was, and the next one starts from there.
 */
async function pollOnce(
	this: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	const staticData = this.getWorkflowStaticData('node');
	const saved = readPosition(staticData);
	const kept = { held: saved?.held ?? [], failed: saved?.failed ?? [] };
	const sinceNow = settings.since ?? null;
	let stored = usablePosition(saved, settings.queryKey);
	// Calls Since set to another date on a trigger that runs: every call since then, once more.
	if (stored?.since !== undefined && stored.since !== sinceNow && settings.since !== undefined)
		stored = undefined;
	const deadline = takeCallsUntil(this, Date.now());
	// Calls kept by a check that ran out of time come first: until they are all delivered, a
	// check spends its time on them and does not read the list (its new calls come after them).
	if (stored !== undefined && kept.held.some((each) => each.outOfTime)) {
		const position = { ...stored, lookBackMs: settings.lookBackMs, since: sinceNow };
		const backlog: Found = { calls: [], after: () => position };
		return await deliver.call(this, kept, backlog, settings, staticData, deadline);
	}
	const pages = pagesOf.call(this, settings);
	const since =
		stored === undefined ? (settings.since ?? startWithout.call(this, settings)) : undefined;
	let found: Found;
	if (stored === undefined && since === undefined) {
		const position = { ...(await start(pages, settings)), since: sinceNow };
		found = { calls: [], after: () => position };
	} else {
		const from: Position = {
			...(stored ?? { seen: [], newestAt: since, floor: since, queryKey: settings.queryKey }),
			lookBackMs: settings.lookBackMs,
			since: sinceNow,
		};
		found = await findNew(pages, settings, from, stored === undefined);
	}
	return await deliver.call(this, kept, found, settings, staticData, deadline);
}

/**
 * Where a check without a stored position and without Calls Since starts: undefined on the
 * check n8n runs when the workflow is published (nothing yet: remember where the list stands).
 * n8n's durable scheduler keeps nothing of that check and runs its scheduled checks with the
 * activation mode "update": such a check finds no position, and starts from the check scheduled
 * before it (Poll Times), Look Back earlier still, so the calls since publishing all come. When
 * Poll Times do not say when that was (several entries, a custom cron), a day earlier: a schedule
 * that checks less than daily is rare, and a few calls more beat a lost one.
 */
function startWithout(this: IPollFunctions, settings: TriggerSettings): number | undefined {
	if (this.getActivationMode() !== 'update') return undefined;
	return Date.now() - (settings.pollGapMs ?? DAY_MS) - settings.lookBackMs;
}

const DAY_MS = 24 * 3_600_000;

/** "Fetch Test Event": the most recent call, so fields can be mapped; the position is left alone. */
async function latestCall(
	this: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	const stored = usablePosition(
		readPosition(this.getWorkflowStaticData('node')),
		settings.queryKey,
	);
	const pagesFrom = pagesOf.call(this, settings);
	const known = settings.order ?? stored?.order;
	let calls: TrackedCall[];
	let order: ListOrder;
	if (known === 'oldest' && stored?.tail !== undefined) {
		// From where the last poll stopped reading when it can, else from the start.
		order = known;
		const tail = await unlessStale(readToEnd(pagesFrom(stored.tail.request)));
		calls =
			tail && tail.calls.length > 0 ? tail.calls : (await readToEnd(pagesFrom(undefined))).calls;
	} else {
		const { first, pages } = await withFirstPage(pagesFrom(undefined));
		order = known ?? timeOrder(first) ?? 'newest';
		calls = order === 'oldest' ? (await readToEnd(pages)).calls : first;
	}
	const newest = chronological(calls, order).pop();
	if (newest === undefined) return null;
	// A test event does not wait: without its recording yet, it comes without a file.
	const noWait = { ...settings, recordingWaitMs: 0, processingLimitMs: 0 };
	const item = await itemFor.call(this, newest, Date.now(), noWait);
	return item === undefined ? null : [[item]];
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
		// List problems (CallListError) keep their advice as the error's description.
		throw toNodeError(this.getNode(), error);
	}
}
