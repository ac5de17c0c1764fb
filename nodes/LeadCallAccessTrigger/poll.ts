import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { CallPage } from '../shared/calls/callPages';
import { MAX_PAGE_SIZE, iterateCallPages } from '../shared/calls/callPages';
import { toNodeError } from '../shared/errors';
import type { ListOrder, TrackedCall } from './calls';
import { CallListError, chronological, timeOrder } from './calls';
import { toItems } from './emit';
import type { Position } from './position';
import { MAX_HELD, readPosition, recordCalls, usablePosition, writePosition } from './position';
import type { TriggerSettings } from './settings';
import { readSettings } from './settings';
import type { PagesFrom } from './tail';
import { findTailCalls, readToEnd, unlessStale } from './tail';
import { findNewCalls, findStartCalls, trackPage } from './walk';

/**
 * One poll. The list's order decides the walk: a newest-first list is read from its first
 * page until the position (walk.ts), an oldest-first one from the page where the last poll
 * stopped (tail.ts). With List Order on Detect the order comes from the calls' times, else from
 * where new ids appear between polls, and is remembered once known.
 */

function pagesOf(this: IPollFunctions, settings: TriggerSettings): PagesFrom {
	return (from) =>
		iterateCallPages.call(this, {
			query: settings.query,
			wanted: () => MAX_PAGE_SIZE,
			policy: settings.policy,
			from,
		});
}

/** The first page, and all pages again (the first is not fetched twice). */
async function withFirstPage(source: AsyncIterable<CallPage>) {
	const iterator = source[Symbol.asyncIterator]();
	const head = await iterator.next();
	async function* pages(): AsyncGenerator<CallPage> {
		if (head.done) return;
		yield head.value;
		for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
			yield next.value;
		}
	}
	return { first: head.done ? [] : trackPage(head.value, undefined), pages: pages() };
}

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

/** First activation: remember where the list stands, emit nothing. */
async function start(pages: PagesFrom, settings: TriggerSettings): Promise<Position> {
	const { first, pages: all } = await withFirstPage(pages(undefined));
	const known = settings.order ?? timeOrder(first);
	const empty: Position = { seen: [], queryKey: settings.queryKey };
	if (known === 'newest') {
		const calls = await findStartCalls(all);
		return recordCalls({ ...empty, order: known }, chronological(calls, 'newest'));
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

/** Later polls, or a first one asked to start from "Calls Since". */
async function findNew(
	pages: PagesFrom,
	settings: TriggerSettings,
	from: Position,
	requireTimes: boolean,
): Promise<{ emitted: TrackedCall[]; position: Position }> {
	let order = settings.order ?? from.order;
	let head: AsyncIterable<CallPage> = pages(undefined);
	if (order === undefined) {
		const { first, pages: all } = await withFirstPage(head);
		order = timeOrder(first) ?? orderFromIds(first, from);
		head = all;
	}
	if (order === 'newest') {
		const fresh = await findNewCalls(head, from, { requireTimes });
		// The oldest first; past the cap the newer ones stay unhandled for the next polls.
		const emitted = chronological(fresh, 'newest').slice(0, settings.maxCalls);
		return { emitted, position: recordCalls({ ...from, order, tail: undefined }, emitted) };
	}
	const { emitted, tail } = await findTailCalls(pages, from, {
		maxCalls: settings.maxCalls,
		requireTimes,
	});
	// New calls found at the end of a list whose order was unknown: it is oldest first.
	if (order === undefined && emitted.length > 0 && from.seen.length > 0) order = 'oldest';
	return { emitted, position: recordCalls({ ...from, order, tail }, emitted) };
}

/**
 * The new position is computed aside and written only once everything (listing and
 * downloads) succeeded: a poll that fails leaves the old one, and the next poll resumes there.
 * Calls held back for their recording live in the position too (see emit.ts).
 */
async function pollOnce(
	this: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	const staticData = this.getWorkflowStaticData('node');
	const saved = readPosition(staticData);
	const held = saved?.held ?? [];
	const stored = usablePosition(saved, settings.queryKey);
	const pages = pagesOf.call(this, settings);
	// Held calls are asked again on every poll: past the bound, new calls wait in the list.
	const room = settings.binaryPropertyName === undefined ? Infinity : MAX_HELD - held.length;
	let emitted: TrackedCall[] = [];
	let position: Position;
	if (stored === undefined && settings.since === undefined) {
		position = await start(pages, settings);
	} else if (room <= 0 && stored !== undefined) {
		position = stored;
	} else {
		const from = stored ?? { seen: [], newestAt: settings.since, queryKey: settings.queryKey };
		const capped = { ...settings, maxCalls: Math.min(settings.maxCalls, room) };
		({ emitted, position } = await findNew(pages, capped, from, stored === undefined));
	}
	const emission = await toItems.call(this, held, emitted, settings);
	writePosition(staticData, { ...position, held: emission.held });
	return emission.items.length > 0 ? [emission.items] : null;
}

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
	const { items } = await toItems.call(this, [], [newest], { ...settings, recordingWaitMs: 0 });
	return [items];
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
