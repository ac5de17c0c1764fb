/**
 * The examples that start from the tools users have (a Google Sheet, an n8n form, HubSpot, S3),
 * run in a real n8n against the emulator. Google and HubSpot cannot be reached offline, so their
 * nodes are replaced by stand-ins of the same name: the source by a Split Out of the rows the
 * test sends, a node writing back by a No Op whose items the test reads. Everything between
 * them, our node included, runs as imported. The form and S3 run with nothing replaced.
 */
import { sleep } from 'n8n-workflow';

import {
	isFinished,
	nodeOutput,
	readStoredExecutions,
	storedOutput,
	type CredentialJson,
	type ServerRunResult,
	type StoredExecution,
	type WorkflowJson,
} from '../n8n';
import type { LocalS3 } from '../s3';
import { loadExample, runnableNow } from './examples';
import type { Session } from './session';

export const STARTING_EXAMPLES = {
	googleSheets: 'import-leads-from-google-sheets.json',
	leadForm: 'lead-form.json',
	hubspotSync: 'sync-hubspot-contacts.json',
	s3: 'save-recordings-to-s3.json',
	googleDrive: 'save-recordings-to-google-drive.json',
} as const;

type Row = Record<string, unknown>;

/** `source` emits the rows of the run's input under `field`; each of `sinks` passes items on. */
function withStandIns(
	workflow: WorkflowJson,
	source: { name: string; field: string },
	sinks: string[],
): WorkflowJson {
	const nodes = workflow.nodes.map((node) => {
		// A stand-in needs no credential.
		const rest = { ...node, credentials: undefined };
		if (node.name === source.name) {
			return {
				...rest,
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				parameters: {
					fieldToSplitOut: `body.${source.field}`,
					include: 'noOtherFields',
					options: {},
				},
			};
		}
		if (sinks.includes(node.name)) {
			return { ...rest, type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} };
		}
		return node;
	});
	return { ...workflow, nodes };
}

/** Every item a node passed on, over all its runs (a node fed by two branches runs twice). */
function allRunsOf(run: ServerRunResult, nodeName: string): Row[] {
	const runs = run.run.data.resultData.runData[nodeName] ?? [];
	return runs.flatMap((_, runIndex) =>
		nodeOutput(run.run, nodeName, 0, runIndex).map((item) => item.json),
	);
}

export interface SheetsRun {
	run: ServerRunResult;
	/** What "Write Result to the Row" would write: row number and result, by row. */
	written: Row[];
}

/** import-leads-from-google-sheets.json over `rows` (each with its row_number, as Get Rows gives). */
export async function runGoogleSheetsExample(
	session: Session,
	credential: CredentialJson,
	rows: Row[],
): Promise<SheetsRun> {
	const workflow = withStandIns(
		loadExample(STARTING_EXAMPLES.googleSheets, session.filesDir),
		{ name: 'Get Rows', field: 'rows' },
		['Write Result to the Row'],
	);
	const run = await session.server.runWorkflow(workflow, [credential], { rows });
	const written = allRunsOf(run, 'Write Result to the Row').sort(
		(a, b) => Number(a.row_number) - Number(b.row_number),
	);
	return { run, written };
}

/**
 * sync-hubspot-contacts.json, deployed once and run now instead of at 1:00, as often as the
 * caller likes (the same workflow each night, so Skip Unchanged Leads remembers across runs).
 */
export async function deployHubSpotSyncExample(
	session: Session,
	credential: CredentialJson,
): Promise<{
	runNight(contacts: Row[]): Promise<{
		run: ServerRunResult;
		counts: { sent: number; skipped: number };
		/** The message the run failed with, naming the rejected contacts; none when all went in. */
		failure?: string;
	}>;
}> {
	const workflow = withStandIns(
		runnableNow(loadExample(STARTING_EXAMPLES.hubspotSync, session.filesDir)),
		{ name: 'Get Contacts', field: 'contacts' },
		[],
	);
	const deployed = await session.server.deployRunnable(workflow, [credential]);
	return {
		async runNight(contacts) {
			const run = await deployed.run({ contacts });
			const counts = { sent: 0, skipped: 0 };
			for (const { json } of nodeOutput(run.run, 'Count Sent and Skipped')) {
				counts[json.skipped === true ? 'skipped' : 'sent'] += Number(json.count_phone_e164);
			}
			const failure = run.run.data.resultData.runData['Fail the Run, Naming Them']?.[0]?.error;
			return { run, counts, failure: failure?.message };
		},
	};
}

/** A contact as HubSpot's "get many contacts" gives it: each property's value under `value`. */
export function hubSpotContact(vid: number, properties: Record<string, string>): Row {
	const wrapped = Object.fromEntries(
		Object.entries(properties).map(([name, value]) => [name, { value }]),
	);
	return { vid, properties: wrapped };
}

/** The words of an HTML page, without its markup. */
const pageText = (html: string) =>
	html
		.replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/&#39;/g, "'")
		.replace(/\s+/g, ' ');

/**
 * lead-form.json, published: each call submits the form as a browser does (its fields as
 * field-0, field-1...), then returns the words of the page n8n sends the person to.
 */
export async function publishLeadFormExample(
	session: Session,
	credential: CredentialJson,
): Promise<{
	workflowId: string;
	submit(name: string, phone: string): Promise<string>;
}> {
	const { server } = session;
	await server.createCredential(credential);
	const workflow = loadExample(STARTING_EXAMPLES.leadForm, session.filesDir);
	const workflowId = await server.deployWorkflow(workflow);
	const trigger = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger')!;
	const formPath = (trigger.parameters.options as { path: string }).path;
	const post = async (name: string, phone: string) => {
		const deadline = Date.now() + 20_000;
		for (;;) {
			const form = new FormData();
			form.append('field-0', name);
			form.append('field-1', phone);
			const res = await fetch(`${server.baseUrl}/form/${formPath}`, { method: 'POST', body: form });
			const text = await res.text();
			// 2.x registers a published form a moment after the call that published it.
			if (res.status === 404 && Date.now() < deadline) {
				await sleep(200);
				continue;
			}
			if (res.status !== 200) throw new Error(`the form answered ${res.status}: ${text}`);
			const waiting = new URL((JSON.parse(text) as { formWaitingUrl: string }).formWaitingUrl);
			return `${server.baseUrl}${waiting.pathname}${waiting.search}`;
		}
	};
	/**
	 * The words of the page the person is sent to. As the form page's script does, it first asks
	 * n8n whether the run has reached the next page (n8n holds a page request for a running
	 * execution without answering), then opens it.
	 */
	const submit = async (name: string, phone: string) => {
		const page = new URL(await post(name, phone));
		const status = `${page.origin}${page.pathname}/n8n-execution-status${page.search}`;
		// Up to a minute: an import the service refuses with 503 is retried for about 15 seconds.
		const deadline = Date.now() + 60_000;
		for (;;) {
			const state = await (await fetch(status, { signal: AbortSignal.timeout(5_000) })).text();
			if (state === 'form-waiting') break;
			if (Date.now() > deadline)
				throw new Error(`the form's run did not reach its next page: ${state}`);
			await sleep(200);
		}
		const res = await fetch(page, { signal: AbortSignal.timeout(10_000) });
		return pageText(await res.text());
	};
	return { workflowId, submit };
}

export interface RecordingUploadRun {
	executions: StoredExecution[];
	/** Call ids the trigger started the workflow with, across all its runs. */
	emitted: string[];
	uploaded: Map<string, Buffer>;
	withoutRecording: string[];
}

/**
 * save-recordings-to-s3.json, published with an S3 credential pointing at `s3`, its Wait for
 * Recording shortened to `waitMs`. `addCalls` adds the new calls after publishing; checks then
 * run on demand (publishing again runs one) until every new call came.
 */
export async function runS3Example(
	session: Session,
	credential: CredentialJson,
	s3: LocalS3,
	options: { waitMs: number; addCalls: () => string[] },
): Promise<RecordingUploadRun> {
	const { server } = session;
	const workflow = loadExample(STARTING_EXAMPLES.s3, session.filesDir);
	const trigger = workflow.nodes.find((node) => node.name === 'New Call With Recording')!;
	(trigger.parameters.options as Row).waitForRecording = options.waitMs / 60_000;
	const upload = workflow.nodes.find((node) => node.name === 'Upload to S3')!;
	upload.parameters.bucketName = s3.bucket;
	await server.createCredential(credential);
	await server.createCredential({
		id: '5',
		name: 'S3 account',
		type: 's3',
		data: s3.credentialData,
	});
	const workflowId = await server.deployWorkflow(workflow);
	await server.publicationStatus(workflowId);
	const added = options.addCalls();

	const finished = async () =>
		(await readStoredExecutions(session.sandbox, workflowId)).filter(isFinished).reverse();
	const emittedBy = (executions: StoredExecution[]) =>
		executions.flatMap((execution) =>
			storedOutput(execution, 'New Call With Recording').map((item) => String(item.json.id)),
		);
	const deadline = Date.now() + options.waitMs + 60_000;
	for (;;) {
		await sleep(1000);
		await server.republish(workflowId);
		const emitted = emittedBy(await finished());
		if (added.every((id) => emitted.includes(id))) break;
		if (Date.now() > deadline) throw new Error('the S3 example did not get every new call in time');
	}
	await server.rest('POST', `/workflows/${workflowId}/deactivate`, {});
	const executions = await finished();
	return {
		executions,
		emitted: emittedBy(executions),
		uploaded: s3.objects(),
		withoutRecording: executions.flatMap((execution) =>
			storedOutput(execution, 'Call Without Recording').map((item) => String(item.json.id)),
		),
	};
}
