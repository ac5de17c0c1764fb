/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The three examples that save recordings, run in a real n8n against the emulator, a night at a
 * time (recordingNight.ts): published as imported, with only what a user sets themselves
 * substituted (the file folder, the credentials, the bucket) and the trigger's waits shortened.
 *
 * - export-recordings.json writes to the session's files folder, nothing replaced.
 * - save-recordings-to-s3.json uploads through n8n's own S3 node to a local S3 server (devkit/s3).
 * - save-recordings-to-google-drive.json: Google Drive cannot be reached offline, so each of its
 *   Google Drive nodes is replaced by an HTTP Request node of the same name posting to a local
 *   stand-in (devkit/drive): Upload sends the file's bytes, Create From Text the text, each with
 *   the node's own File Name expression and folder ID as the `name` and `folder` query
 *   parameters. So the names the test checks are the ones the example computes; only the upload
 *   itself is Drive's stand-in.
 */
import * as fs from 'fs';
import * as path from 'path';

import type { DriveFile, LocalDrive } from '../drive';
import type { CredentialJson, WorkflowJson } from '../n8n';
import { storedOutput } from '../n8n';
import type { LocalS3 } from '../s3';
import { loadExample } from './examples';
import {
	addNightCalls,
	runNight,
	withCheckTimes,
	type CheckTimes,
	type NightCallIds,
	type NightCalls,
	type NightRun,
} from './recordingNight';
import type { Session } from './session';

export const RECORDING_EXAMPLES = {
	export: 'export-recordings.json',
	s3: 'save-recordings-to-s3.json',
	drive: 'save-recordings-to-google-drive.json',
} as const;

const EXPORT_TRIGGER = 'Every Night: New Calls';
const UPLOAD_TRIGGER = 'New Call With Recording';

/** Where export-recordings.json writes, below the folder n8n may use. */
export const exportFolder = (session: Session) => path.join(session.filesDir, 'recordings');

export type ExportRun = NightCalls & CheckTimes;

export interface ExportSummary extends NightRun {
	/** The night's calls, by kind. */
	calls: NightCallIds;
	/** The recordings "Write Recording to Disk" wrote, as its output items say. */
	saved: Array<{
		callId: string;
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
 * export-recordings.json, published as imported with its waits shortened, over a night of
 * `run`'s calls. Its folder (`recordings`, which the sticky note asks users to create) is made
 * empty first.
 */
export async function runExportExample(
	session: Session,
	credential: CredentialJson,
	run: ExportRun,
): Promise<ExportSummary> {
	const folder = exportFolder(session);
	fs.rmSync(folder, { recursive: true, force: true });
	fs.mkdirSync(folder, { recursive: true });
	const workflow = withCheckTimes(
		loadExample(RECORDING_EXAMPLES.export, session.filesDir),
		EXPORT_TRIGGER,
		run,
	);
	let calls: NightCallIds = { recorded: [], missed: [], late: [], stuck: [], all: [] };
	const night = await runNight(
		session,
		workflow,
		EXPORT_TRIGGER,
		[credential],
		() => (calls = addNightCalls(session.emulator, run)).all,
		run.waitMs + (run.processingLimitMs ?? 0) + (run.late?.readyMs ?? 0),
	);
	const saved = night.executions.flatMap((execution) =>
		storedOutput(execution, 'Write Recording to Disk').map((item) => {
			const file = String(item.json.fileName);
			return {
				callId: String(item.json.id),
				file,
				bytes: fs.existsSync(file) ? fs.statSync(file).size : -1,
				mimeType: String(item.binary?.data?.mimeType),
				binaryId: String(item.binary?.data?.id),
			};
		}),
	);
	const files = new Map(
		fs.readdirSync(folder).map((name) => [name, fs.readFileSync(path.join(folder, name))]),
	);
	return { ...night, calls, saved, files };
}

export interface UploadOptions extends CheckTimes {
	/** Adds the night's calls after publishing; returns their ids. */
	addCalls: () => string[];
	/** How long the night may take beyond the waits (recordings ready late). */
	extraMs?: number;
}

export interface RecordingUploadRun extends NightRun {
	/** Every object in the bucket after the night, by key. */
	uploaded: Map<string, Buffer>;
}

/** save-recordings-to-s3.json, published with an S3 credential pointing at `s3` and its bucket. */
export async function runS3Example(
	session: Session,
	credential: CredentialJson,
	s3: LocalS3,
	options: UploadOptions,
): Promise<RecordingUploadRun> {
	const workflow = withCheckTimes(
		loadExample(RECORDING_EXAMPLES.s3, session.filesDir),
		UPLOAD_TRIGGER,
		options,
	);
	for (const node of workflow.nodes.filter((each) => each.type === 'n8n-nodes-base.s3'))
		node.parameters.bucketName = s3.bucket;
	const s3Credential = { id: '5', name: 'S3 account', type: 's3', data: s3.credentialData };
	const night = await runNight(
		session,
		workflow,
		UPLOAD_TRIGGER,
		[credential, s3Credential],
		options.addCalls,
		options.waitMs + (options.processingLimitMs ?? 0) + (options.extraMs ?? 0),
	);
	return { ...night, uploaded: s3.objects() };
}

/** The example's Google Drive nodes as HTTP Request nodes to `drive` (see the header comment). */
export function withDriveStandIn(workflow: WorkflowJson, drive: LocalDrive): WorkflowJson {
	const nodes = workflow.nodes.map((node) => {
		if (node.type !== 'n8n-nodes-base.googleDrive') return node;
		const parameters = node.parameters;
		const operation = parameters.operation ?? 'upload';
		if (operation !== 'upload' && operation !== 'createFromText')
			throw new Error(`${node.name}: no stand-in for Google Drive's ${String(operation)}`);
		const folder = (parameters.folderId as { value: string }).value;
		const body =
			operation === 'upload'
				? { contentType: 'binaryData', inputDataFieldName: parameters.inputDataFieldName }
				: { contentType: 'raw', rawContentType: 'text/plain', body: parameters.content };
		return {
			...node,
			credentials: undefined,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				method: 'POST',
				url: `${drive.url}/upload`,
				sendQuery: true,
				queryParameters: {
					parameters: [
						{ name: 'name', value: parameters.name },
						{ name: 'folder', value: folder },
					],
				},
				sendBody: true,
				...body,
				options: {},
			},
		};
	});
	return { ...workflow, nodes };
}

export interface DriveRun extends NightRun {
	/** Every file the stand-in received, in arrival order. */
	files: DriveFile[];
}

/** save-recordings-to-google-drive.json with its Drive nodes posting to `drive`. */
export async function runDriveExample(
	session: Session,
	credential: CredentialJson,
	drive: LocalDrive,
	options: UploadOptions,
): Promise<DriveRun> {
	const workflow = withDriveStandIn(
		withCheckTimes(
			loadExample(RECORDING_EXAMPLES.drive, session.filesDir),
			UPLOAD_TRIGGER,
			options,
		),
		drive,
	);
	const night = await runNight(
		session,
		workflow,
		UPLOAD_TRIGGER,
		[credential],
		options.addCalls,
		options.waitMs + (options.processingLimitMs ?? 0) + (options.extraMs ?? 0),
	);
	return { ...night, files: [...drive.files] };
}
