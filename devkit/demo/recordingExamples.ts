/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The three examples that save recordings, run in a real n8n against the emulator, a night at a
 * time: the night's calls (recordings ready at once, missed calls, recordings still being
 * processed past Wait for Recording, and some never ready), and the example's trigger checked on
 * demand (publishing again runs one check, from the position n8n stored) until every call came,
 * then once more. Each example is published as imported, with only what a user sets themselves
 * substituted (the file folder, the credentials, the bucket) and the trigger's waits shortened.
 *
 * - export-recordings.json writes to the session's files folder, nothing replaced.
 * - save-recordings-to-s3.json uploads through n8n's own S3 node to a local S3 server (devkit/s3).
 * - save-recordings-to-google-drive.json: ./driveExample.ts, n8n's own Google Drive node
 *   answered by a local stand-in (devkit/drive).
 */
import * as fs from 'fs';
import * as path from 'path';

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
import type { LocalS3 } from '../s3';
import { EXAMPLES, loadExample } from './examples';
import type { Session } from './session';

export interface Night {
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
	/** Wait for Recording, shortened so that a night takes seconds. */
	waitMs: number;
	/** Give Up After, shortened likewise; default: the example's own (a day). */
	processingLimitMs?: number;
	/**
	 * The calls of a night already run, to deliver again (Calls Since set to the night's start,
	 * in a new workflow): a re-run, as after n8n stopped mid-run. No calls are added.
	 */
	again?: NightCallIds;
	/** Called once the night's calls are added, before the checks that deliver them. */
	onCalls?: (calls: NightCallIds) => void;
}

export type NightCallIds = Record<'recorded' | 'missed' | 'late' | 'stuck' | 'all', string[]>;

/** Adds the night's calls, oldest first in the order of Night's fields. */
function addNightCalls(emulator: Emulator, night: Night): NightCallIds {
	let index = 0;
	const add = (count: number, delayMs: number, recorded: boolean): string[] => {
		emulator.setRecordingProcessing({ delayMs, pendingAnswer: night.pendingAnswer });
		return Array.from({ length: count }, () => {
			const at = night.from && new Date(Date.parse(night.from) + index++ * 60_000).toISOString();
			const times = at ? { created_at: at, started_at: at, ended_at: at } : {};
			const status = recorded ? 'completed' : 'missed';
			return emulator.addCalls(1, { status, has_recording: recorded, ...times })[0].id;
		});
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

export interface NightRun {
	/** The night's calls, by kind. */
	calls: NightCallIds;
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

/**
 * Publishes `workflow` with its trigger's waits shortened, adds the night's calls, then checks on
 * demand once a second until every call came, and once more: nothing may come twice. Waits for
 * the last executions to finish before reading them.
 */
export async function runNight(
	session: Session,
	workflow: WorkflowJson,
	triggerName: string,
	credentials: CredentialJson[],
	night: Night,
): Promise<NightRun> {
	// Minutes and hours, as the editor has them.
	const trigger = workflow.nodes.find((node) => node.name === triggerName)!;
	const options = trigger.parameters.options as Record<string, unknown>;
	options.waitForRecording = night.waitMs / 60_000;
	if (night.processingLimitMs !== undefined)
		options.processingLimitHours = night.processingLimitMs / 3_600_000;
	if (night.again && night.from)
		options.callsSince = new Date(Date.parse(night.from) - 60_000).toISOString();
	const { server } = session;
	for (const credential of credentials) await server.createCredential(credential);
	const workflowId = await server.deployWorkflow(workflow);
	await server.publicationStatus(workflowId);
	let polls = 1;
	const calls = night.again ?? addNightCalls(session.emulator, night);
	night.onCalls?.(calls);

	const stored = async () => (await readStoredExecutions(session.sandbox, workflowId)).reverse();
	const outputs = (executions: StoredExecution[]) =>
		executions.filter(isFinished).flatMap((execution) => storedOutput(execution, triggerName));
	const callItems = (executions: StoredExecution[]) =>
		outputs(executions).filter((item) => item.json.summary !== true);
	const timeoutMs = night.waitMs + (night.processingLimitMs ?? 0) + (night.late?.readyMs ?? 0);
	const deadline = Date.now() + timeoutMs + 60_000;
	for (;;) {
		await sleep(1000);
		await server.republish(workflowId);
		polls++;
		const emitted = callItems(await stored()).map((item) => String(item.json.id));
		if (calls.all.every((id) => emitted.includes(id))) break;
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
		calls,
		executions,
		polls,
		items,
		emitted: items.map((item) => String(item.json.id)),
		summaries: outputs(executions)
			.filter((item) => item.json.summary === true)
			.map((item) => item.json),
		withoutRecording: items
			.filter((item) => item.json.recordingStatus !== 'downloaded')
			.map((item) => String(item.json.id)),
	};
}

const EXPORT_TRIGGER = 'Every Night: New Calls';
export const UPLOAD_TRIGGER = 'New Call With Recording';

/** Where export-recordings.json writes, below the folder n8n may use. */
export const exportFolder = (session: Session) => path.join(session.filesDir, 'recordings');

export interface ExportSummary extends NightRun {
	/** The recordings "Write Recording to Disk" wrote (one call a run), as its output items say. */
	saved: Array<{
		file: string;
		bytes: number;
		mimeType: string;
		/** Where n8n kept the file on its way to disk ("filesystem:…", "database:…"). */
		binaryId: string;
	}>;
	/** Every file in the export folder after the night, by name. */
	files: Map<string, Buffer>;
}

/**
 * export-recordings.json over a `night` of calls. Its folder (`recordings`, which the sticky
 * note asks users to create) is made empty first.
 */
export async function runExportExample(
	session: Session,
	credential: CredentialJson,
	night: Night,
): Promise<ExportSummary> {
	const folder = exportFolder(session);
	fs.rmSync(folder, { recursive: true, force: true });
	fs.mkdirSync(folder, { recursive: true });
	const workflow = loadExample(EXAMPLES.exportRecordings, session.filesDir);
	const run = await runNight(session, workflow, EXPORT_TRIGGER, [credential], night);
	const writes = (execution: StoredExecution) =>
		(execution.data?.resultData.runData['Write Recording to Disk'] ?? []).flatMap(
			(write) => write.data?.main?.[0] ?? [],
		);
	const saved = run.executions.flatMap((execution) =>
		writes(execution).map((item) => {
			const file = String(item.json.fileName);
			return {
				file,
				bytes: fs.existsSync(file) ? fs.statSync(file).size : -1,
				mimeType: String(item.binary?.data?.mimeType),
				binaryId: String(item.binary?.data?.id),
			};
		}),
	);
	const files = new Map(
		fs
			.readdirSync(folder, { withFileTypes: true })
			.filter((entry) => entry.isFile())
			.map(({ name }) => [name, fs.readFileSync(path.join(folder, name))]),
	);
	return { ...run, saved, files };
}

/** save-recordings-to-s3.json with an S3 credential pointing at `s3` and its bucket. */
export async function runS3Example(
	session: Session,
	credential: CredentialJson,
	s3: LocalS3,
	night: Night,
): Promise<NightRun & { uploaded: Map<string, Buffer> }> {
	const workflow = loadExample(EXAMPLES.s3, session.filesDir);
	for (const node of workflow.nodes.filter((each) => each.type === 'n8n-nodes-base.s3'))
		node.parameters.bucketName = s3.bucket;
	const s3Credential = { id: '5', name: 'S3 account', type: 's3', data: s3.credentialData };
	const run = await runNight(session, workflow, UPLOAD_TRIGGER, [credential, s3Credential], night);
	return { ...run, uploaded: s3.objects() };
}
