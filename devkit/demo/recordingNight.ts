/**
 * A night of calls for the recording examples, in a real n8n against the emulator: the calls
 * (recordings ready at once, missed calls, recordings still being processed past Wait for
 * Recording, and some never ready), and the examples' trigger checked on demand (publishing again
 * runs one check, from the position n8n stored) until every call came, then once more.
 */
import { sleep } from 'n8n-workflow';

import type { Emulator, PendingRecordingAnswer } from '../emulator';
import {
	isFinished,
	readStoredExecutions,
	storedOutput,
	type CredentialJson,
	type NodeExecutionItem,
	type StoredExecution,
	type WorkflowJson,
} from '../n8n';
import type { Session } from './session';

export interface NightCalls {
	/** Calls with a recording, ready `processingMs` after the call appears. */
	recorded: number;
	/** Missed calls: the service has no recording of them. */
	missed: number;
	processingMs: number;
	/** Recordings still being processed when Wait for Recording ends: ready `readyMs` after their call. */
	late?: { count: number; readyMs: number };
	/** Recordings the service says are being processed all night (never ready). */
	stuck?: number;
	/** What the API answers meanwhile (default: the emulator's, 200 without a URL). */
	pendingAnswer?: PendingRecordingAnswer;
	/** The first call's time (ISO); the others follow a minute apart. Default: the emulator's. */
	from?: string;
}

export interface NightCallIds {
	recorded: string[];
	missed: string[];
	late: string[];
	stuck: string[];
	all: string[];
}

/** Adds the night's calls, oldest first in the order of NightCalls' fields. */
export function addNightCalls(emulator: Emulator, night: NightCalls): NightCallIds {
	let index = 0;
	const add = (count: number, delayMs: number, recorded: boolean): string[] => {
		emulator.setRecordingProcessing({ delayMs, pendingAnswer: night.pendingAnswer });
		const ids: string[] = [];
		for (let n = 0; n < count; n++) {
			const at = night.from && new Date(Date.parse(night.from) + index++ * 60_000).toISOString();
			const times = at ? { created_at: at, started_at: at, ended_at: at } : {};
			const [call] = emulator.addCalls(1, {
				status: recorded ? 'completed' : 'missed',
				has_recording: recorded,
				...times,
			});
			ids.push(call.id);
		}
		return ids;
	};
	try {
		const recorded = add(night.recorded, night.processingMs, true);
		const missed = add(night.missed, 0, false);
		const late = add(night.late?.count ?? 0, night.late?.readyMs ?? 0, true);
		const stuck = add(night.stuck ?? 0, 24 * 3_600_000, true);
		return { recorded, missed, late, stuck, all: [...recorded, ...missed, ...late, ...stuck] };
	} finally {
		emulator.setRecordingProcessing({ delayMs: 0, pendingAnswer: 'processing' });
	}
}

export interface CheckTimes {
	/** Wait for Recording, shortened so that a night takes seconds. */
	waitMs: number;
	/** Give Up on Processing After, shortened likewise; default: the example's own (a day). */
	processingLimitMs?: number;
}

export interface NightRun {
	workflowId: string;
	/** The workflow's executions, oldest first. */
	executions: StoredExecution[];
	/** Checks run (publications), the first included. */
	polls: number;
	/** The trigger's call items, in order, across all executions (a repeat would show). */
	items: NodeExecutionItem[];
	/** Call ids, in the same order. */
	emitted: string[];
	/** Add Summary Item's items, one per check that delivered calls. */
	summaries: Array<Record<string, unknown>>;
	/** Calls that came without a file (missed, or still processing when the trigger gave up). */
	withoutRecording: string[];
}

/** The example's trigger with its waits shortened (minutes and hours, as the editor has them). */
export function withCheckTimes(
	workflow: WorkflowJson,
	triggerName: string,
	times: CheckTimes,
): WorkflowJson {
	const trigger = workflow.nodes.find((node) => node.name === triggerName);
	if (!trigger) throw new Error(`the example has no node "${triggerName}"`);
	const options = trigger.parameters.options as Record<string, unknown>;
	options.waitForRecording = times.waitMs / 60_000;
	if (times.processingLimitMs !== undefined)
		options.processingLimitHours = times.processingLimitMs / 3_600_000;
	return workflow;
}

/**
 * Publishes `workflow`, calls `addCalls` (which returns the night's call ids), then checks on
 * demand once a second until every call came, and once more: nothing may come twice. Waits for
 * the last executions to finish before reading them.
 */
export async function runNight(
	session: Session,
	workflow: WorkflowJson,
	triggerName: string,
	credentials: CredentialJson[],
	addCalls: () => string[],
	timeoutMs: number,
): Promise<NightRun> {
	const { server } = session;
	for (const credential of credentials) await server.createCredential(credential);
	const workflowId = await server.deployWorkflow(workflow);
	await server.publicationStatus(workflowId);
	let polls = 1;
	const added = addCalls();

	const stored = async () => (await readStoredExecutions(session.sandbox, workflowId)).reverse();
	const callItems = (executions: StoredExecution[]) =>
		executions
			.filter(isFinished)
			.flatMap((execution) => storedOutput(execution, triggerName))
			.filter((item) => item.json.summary !== true);
	const deadline = Date.now() + timeoutMs + 60_000;
	for (;;) {
		await sleep(1000);
		await server.republish(workflowId);
		polls++;
		const emitted = callItems(await stored()).map((item) => String(item.json.id));
		if (added.every((id) => emitted.includes(id))) break;
		if (Date.now() > deadline)
			throw new Error(`${workflow.name}: not every call came in time (${emitted.length} came)`);
	}
	await server.republish(workflowId); // once more: nothing may come twice
	polls++;
	await sleep(1000);
	await server.rest('POST', `/workflows/${workflowId}/deactivate`, {});
	let executions = await stored();
	for (const settled = Date.now() + 30_000; !executions.every(isFinished);) {
		if (Date.now() > settled) throw new Error(`${workflow.name}: an execution did not finish`);
		await sleep(500);
		executions = await stored();
	}

	const items = callItems(executions);
	return {
		workflowId,
		executions,
		polls,
		items,
		emitted: items.map((item) => String(item.json.id)),
		summaries: executions
			.flatMap((execution) => storedOutput(execution, triggerName))
			.filter((item) => item.json.summary === true)
			.map((item) => item.json),
		withoutRecording: items
			.filter((item) => item.json.recordingStatus !== 'downloaded')
			.map((item) => String(item.json.id)),
	};
}
