/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The lead examples, run in a real n8n against the emulator as users import them (only the file
 * folder, the credential, and an option a user would turn on themselves changed): the CSV file,
 * the Google Sheet and HubSpot (their nodes stood in for, see startingExamples.ts) and the form.
 */
import * as fs from 'fs';
import * as path from 'path';

import { sleep } from 'n8n-workflow';

import { nodeOutput, type CredentialJson, type ServerRunResult, type WorkflowJson } from '../n8n';
import { EXAMPLE_FILES, EXAMPLES_DIR, loadExample, runnableNow } from './examples';
import type { Session } from './session';
import { STARTING_EXAMPLES, allRunsOf, withStandIns, type Row } from './startingExamples';

/** Sets options of the example's Import Lead, as a user would in the editor. */
function withImportOptions(workflow: WorkflowJson, options: Row): WorkflowJson {
	const node = workflow.nodes.find((candidate) => candidate.name === 'Import Lead')!;
	node.parameters.options = { ...(node.parameters.options as Row), ...options };
	return workflow;
}

export interface CsvRun {
	run: ServerRunResult;
	/** What Import Lead output on its success branch. */
	imported: Row[];
	/** rejected-leads.csv, as the example wrote it ('' when it wrote none). */
	rejectedCsv: string;
}

/**
 * import-leads-from-csv.json, with Import Lead's `options` set (Dry Run, Default Country) and
 * its Read node pointed at `read` (default: the bundled leads.csv, copied into the folder).
 */
export async function runCsvExample(
	session: Session,
	credential: CredentialJson,
	setup: { options?: Row; read?: string } = {},
): Promise<CsvRun> {
	const rejectedFile = path.join(session.filesDir, 'rejected-leads.csv');
	fs.rmSync(rejectedFile, { force: true });
	const workflow = withImportOptions(
		loadExample(EXAMPLE_FILES.importLeads, session.filesDir),
		setup.options ?? {},
	);
	const read = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.readWriteFile')!;
	if (setup.read === undefined) {
		fs.copyFileSync(path.join(EXAMPLES_DIR, 'leads.csv'), path.join(session.filesDir, 'leads.csv'));
	} else {
		read.parameters.fileSelector = setup.read;
	}
	const run = await session.server.runWorkflow(workflow, [credential]);
	const imported = nodeOutput(run.run, 'Import Lead', 0).map((item) => item.json);
	const rejectedCsv = fs.existsSync(rejectedFile) ? fs.readFileSync(rejectedFile, 'utf8') : '';
	return { run, imported, rejectedCsv: rejectedCsv.replace(/^\uFEFF/, '') };
}

export interface SheetsRun {
	run: ServerRunResult;
	/** What "Write Result to the Row" would write: row number and result, by row. */
	written: Row[];
}

/**
 * import-leads-from-google-sheets.json over `rows` (each with its row_number, as Get Rows gives),
 * with Import Lead's `options` set as a user would (Dry Run).
 */
export async function runGoogleSheetsExample(
	session: Session,
	credential: CredentialJson,
	rows: Row[],
	options: Row = {},
): Promise<SheetsRun> {
	const workflow = withStandIns(
		withImportOptions(loadExample(STARTING_EXAMPLES.googleSheets, session.filesDir), options),
		{ name: 'Get Rows', field: 'rows' },
		['Write Result to the Row'],
	);
	const run = await session.server.runWorkflow(workflow, [credential], { rows });
	const written = allRunsOf(run, 'Write Result to the Row').sort(
		(a, b) => Number(a.row_number) - Number(b.row_number),
	);
	return { run, written };
}

export interface HubSpotNight {
	run: ServerRunResult;
	counts: { sent: number; skipped: number };
	/** What "Contacts Without a Phone" output; undefined when every contact had one. */
	withoutPhone?: Row;
	/** The message the run failed with, naming the rejected contacts; none when all went in. */
	failure?: string;
}

/**
 * sync-hubspot-contacts.json, deployed once and run now instead of at 1:00, as often as the
 * caller likes (the same workflow each night, so Skip Unchanged Leads remembers across runs).
 */
export async function deployHubSpotSyncExample(
	session: Session,
	credential: CredentialJson,
): Promise<{ runNight(contacts: Row[]): Promise<HubSpotNight> }> {
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
			const { runData } = run.run.data.resultData;
			const [withoutPhone] = runData['Contacts Without a Phone']
				? nodeOutput(run.run, 'Contacts Without a Phone')
				: [];
			const failure = runData['Fail the Run, Naming Them']?.[0]?.error;
			return { run, counts, withoutPhone: withoutPhone?.json, failure: failure?.message };
		},
	};
}

/**
 * A contact as HubSpot's "get many contacts" gives it: each property's value under `value`; the
 * name's last word is the last name. Without `phone`, the contact has no phone property.
 */
export function hubSpotContact(vid: number, name: string, phone?: string): Row {
	const at = name.lastIndexOf(' ');
	const properties: Record<string, string> = {
		firstname: name.slice(0, at),
		lastname: name.slice(at + 1),
	};
	if (phone !== undefined) properties.phone = phone;
	const wrapped = Object.fromEntries(
		Object.entries(properties).map(([property, value]) => [property, { value }]),
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

/** The answers lead-form.json kept for later: its form-submission-*.csv files, by name. */
export function keptFormSubmissions(session: Session): Array<{ file: string; csv: string }> {
	return fs
		.readdirSync(session.filesDir)
		.filter((file) => /^form-submission-.*\.csv$/.test(file))
		.sort()
		.map((file) => ({
			file: path.join(session.filesDir, file),
			csv: fs.readFileSync(path.join(session.filesDir, file), 'utf8').replace(/^\uFEFF/, ''),
		}));
}

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
