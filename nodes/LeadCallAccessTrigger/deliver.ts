import type { IDataObject, INodeExecutionData, IPollFunctions, IRun } from 'n8n-workflow';

import { statusOf, toNodeError } from '../shared/errors';
import { pause } from '../shared/transport';
import type { TrackedCall } from './calls';
import type { RecordingStatus } from './item';
import { itemFor } from './item';
import type { FailedCall, HeldCall, Position } from './position';
import { writePosition } from './storedPosition';
import type { TriggerSettings } from './settings';

/**
 * Delivering what a check found: the calls of executions that failed at earlier checks, the
 * calls held back for their recording, then the new ones, oldest first, in executions of at most
 * Calls per Execution, one after the other.
 *
 * Each execution is started with n8n's own `__emit` and a done promise (as n8n's queue triggers
 * acknowledge a message once its execution finished), and the next one only once it has
 * finished. So a check of any size holds one execution's files at a time (n8n 1.x keeps them in
 * memory), and the executions list shows the export as it goes.
 *
 * The position moves past an execution's calls once it has finished, and n8n says how it ended:
 * the calls of an execution that did not succeed stay due (`FailedCall`), delivered again at the
 * next checks until one succeeds (Deliver Failed Calls Again). n8n saves the trigger's static
 * data when the trigger starts an execution, so the position saved is always the one after the
 * executions that finished: when n8n stops in the middle (killed, say), the next check starts
 * again with the calls of the execution that was running, and at most those come twice. After the
 * last execution the check starts one more, without calls, which saves the final position.
 *
 * Each call's item is built by `itemFor` (item.ts), with its recording when Download Recording is on.
 */

/**
 * A call to deliver: `since` is set for a call held back (when the trigger first asked), `failed`
 * for a call whose execution failed at an earlier check.
 */
interface Entry {
	call: TrackedCall;
	since?: number;
	failed?: FailedCall & { lastAttempt: boolean };
}

/** What a check found: the new calls, oldest first, and the position once the first n are handled. */
export interface Found {
	calls: TrackedCall[];
	after: (handled: number) => Position;
}

/**
 * Whether n8n says an execution did not succeed: it failed, crashed or was stopped. n8n resolves
 * the done promise with the finished run (`IRun`) on both lines, in queue mode too. Without one,
 * n8n started no run: a poll that lost its lease under n8n 2.x's durable scheduler (it keeps none
 * of that poll's positions either). Its calls stay due, and the check stops (see `flush`).
 */
function didNotSucceed(run: IRun | undefined): boolean {
	if (run === undefined) return true;
	const { status } = run;
	return (
		status === 'error' ||
		status === 'crashed' ||
		status === 'canceled' ||
		run.data?.resultData?.error !== undefined
	);
}

/** What a check did, for Add Summary Item. */
interface Tally {
	delivered: Array<RecordingStatus | undefined>;
	inFailedExecutions: number;
	gaveUp: number;
}

/**
 * Add Summary Item: the check's last execution gets one item counting what it delivered, in
 * place of the empty item list it ends with otherwise (see above), for a morning message.
 */
function summaryItem(tally: Tally, heldForLater: number): INodeExecutionData {
	const { delivered } = tally;
	const count = (status: RecordingStatus) => delivered.filter((each) => each === status).length;
	return {
		json: {
			summary: true,
			callsDelivered: delivered.length,
			withRecording: count('downloaded'),
			missed: count('none'),
			stillProcessing: count('processing'),
			heldForLater,
			inFailedExecutions: tally.inFailedExecutions,
			gaveUp: tally.gaveUp,
			checkedAt: new Date().toISOString(),
		},
	};
}

/** The longest pause between two questions while a check waits for recordings. */
const MAX_RECHECK_MS = 30_000;

/**
 * n8n-core's fallback poll budget, given where no scheduler enforces one: the in-memory
 * scheduler waits for a check however long it runs, so this is no limit.
 */
const UNENFORCED_BUDGET_MS = 5 * 60_000;

/**
 * When this check stops taking calls. n8n's durable scheduler (2.36+) gives each poll a time
 * budget (`getPollBudgetMs`, absent on 1.x) and abandons a poll that overruns it; the calls not
 * reached are kept for the next check. New calls are taken for two thirds of it: the last
 * execution started must still finish inside it, since the trigger waits to learn its outcome.
 */
export function takeCallsUntil(poll: IPollFunctions, pollStartedAt: number): number {
	const budgetMs = typeof poll.getPollBudgetMs === 'function' ? poll.getPollBudgetMs() : undefined;
	if (budgetMs === undefined || budgetMs === UNENFORCED_BUDGET_MS || !(budgetMs > 0))
		return Infinity;
	return pollStartedAt + (budgetMs * 2) / 3;
}

/** The settings for a request made before `until`: no rate-limit wait reaches past it. */
function inTime(settings: TriggerSettings, until: number): TriggerSettings {
	if (until === Infinity) return settings;
	return { ...settings, policy: { ...settings.policy, waitsEndBy: until } };
}

/**
 * The calls of failed executions due again at this check. One whose Give Up After has passed
 * gets a last attempt (`lastAttempt`), whatever its outcome.
 */
function dueAgain(failed: FailedCall[], settings: TriggerSettings): Entry[] {
	const now = Date.now();
	return failed.map((each) => ({
		call: each.call,
		failed: { ...each, lastAttempt: now - each.since >= settings.giveUpMs },
	}));
}

export async function deliver(
	this: IPollFunctions,
	stored: { held: HeldCall[]; failed: FailedCall[] },
	found: Found,
	settings: TriggerSettings,
	staticData: IDataObject,
	deadline: number,
): Promise<INodeExecutionData[][] | null> {
	let handled = 0; // new calls handled (emitted or held back)
	const tally: Tally = { delivered: [], inFailedExecutions: 0, gaveUp: 0 };
	let executions = 0;
	let batch: Array<{ item: INodeExecutionData; entry: Entry }> = [];
	/** Calls of failed executions still due, by id: those of this check are added as they fail. */
	const failedCalls = new Map(stored.failed.map((each) => [each.call.id, each]));
	let until = deadline;

	const save = (stillHeld: HeldCall[]) =>
		writePosition(staticData, {
			...found.after(handled),
			held: stillHeld,
			failed: [...failedCalls.values()],
		});

	/** Starts an execution with the batch and waits until n8n has finished it. */
	const flush = async (stillHeld: () => HeldCall[]): Promise<void> => {
		const done = this.helpers.createDeferredPromise<IRun | undefined>();
		const sent = batch;
		batch = [];
		this.__emit([sent.map(({ item }) => item)], undefined, done);
		executions++;
		const run = await done.promise;
		// No run: n8n started none (a durable poll that lost its lease): this check's emits are void.
		if (run === undefined) until = 0;
		for (const { entry } of sent) {
			const before = entry.failed;
			const succeeded = !didNotSucceed(run);
			if (!succeeded) tally.inFailedExecutions++;
			if (succeeded || !settings.retryFailed) failedCalls.delete(entry.call.id);
			else if (before?.lastAttempt) {
				failedCalls.delete(entry.call.id);
				tally.gaveUp++;
			} else {
				const failures = (before?.failures ?? 0) + 1;
				failedCalls.set(entry.call.id, {
					call: entry.call,
					since: before?.since ?? Date.now(),
					failures,
				});
			}
		}
		save(stillHeld());
	};

	/** One pass over the entries; returns those still held back. */
	const pass = async (entries: Entry[]): Promise<HeldCall[]> => {
		const stillHeld: HeldCall[] = [];
		// Entries not reached yet that were held already stay held; new calls stay unhandled.
		const rest = (from: number) =>
			entries
				.slice(from)
				.filter((entry) => entry.since !== undefined)
				.map((entry) => ({ call: entry.call, since: entry.since! }));
		/**
		 * Out of time: the calls not reached are kept for the next check, new ones too, so that it
		 * need not read the list back to them (failed calls stay due as they are).
		 */
		const keepFrom = async (index: number): Promise<HeldCall[]> => {
			const now = Date.now();
			const left = entries.slice(index).filter((each) => each.failed === undefined);
			handled += left.filter((each) => each.since === undefined).length;
			const kept = left.map(({ call, since }) => ({ call, since: since ?? now, outOfTime: true }));
			if (batch.length > 0) await flush(() => [...stillHeld, ...kept]);
			return [...stillHeld, ...kept];
		};
		for (let index = 0; index < entries.length; index++) {
			if (Date.now() >= until) return await keepFrom(index);
			const entry = entries[index];
			const { call, failed } = entry;
			// A failed call was waited for before its first run: it does not wait again.
			const since = entry.since ?? (failed === undefined ? Date.now() : 0);
			let item: INodeExecutionData | undefined;
			try {
				if (!(settings.keepCallOrder && stillHeld.length > 0 && failed === undefined))
					item = await itemFor.call(this, call, since, inTime(settings, until));
			} catch (error) {
				// The service asks to wait longer than the check has left: the rest is for the next.
				if (until !== Infinity && statusOf(error) === '429') return await keepFrom(index);
				throw toNodeError(this.getNode(), error);
			}
			if (entry.since === undefined && failed === undefined) handled++;
			if (item === undefined) {
				// Only Keep Call Order holds a failed call back: it stays due as it was.
				if (failed === undefined) stillHeld.push({ call, since });
			} else {
				if (failed !== undefined) {
					item.json.failedExecutions = failed.failures;
					item.json.lastAttempt = failed.lastAttempt;
				}
				batch.push({ item, entry });
				tally.delivered.push(item.json.recordingStatus as RecordingStatus | undefined);
			}
			if (batch.length >= settings.callsPerExecution) {
				await flush(() => [...stillHeld, ...rest(index + 1)]);
			}
		}
		if (batch.length > 0) await flush(() => stillHeld);
		return stillHeld;
	};

	const entries: Entry[] = [
		...dueAgain(stored.failed, settings),
		...stored.held.map(({ call, since }) => ({ call, since })),
		...found.calls.map((call) => ({ call })),
	];
	let stillHeld = await pass(entries);
	// The next check comes after Wait for Recording has passed: wait for the recordings here,
	// up to Wait for Recording. Those still being processed then are left to the next checks.
	const waitEnds = () =>
		Math.max(...stillHeld.map(({ since }) => since + settings.recordingWaitMs));
	for (let pauseMs = 2000; settings.waitInCheck && until === Infinity && stillHeld.length > 0;) {
		const left = waitEnds() - Date.now();
		if (left <= 0) break;
		await pause.call(this, Math.min(pauseMs, left));
		pauseMs = Math.min(pauseMs * 2, MAX_RECHECK_MS);
		stillHeld = await pass(stillHeld);
	}
	save(stillHeld);
	if (executions === 0) return null;
	// One more execution saves the final position (n8n saves static data when an execution
	// starts). Started here rather than returned, since n8n's durable scheduler drops what a poll
	// returns after its time limit, while the executions a poll starts itself still run.
	this.__emit(settings.summaryItem ? [[summaryItem(tally, stillHeld.length)]] : [[]]);
	return null;
}
