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
import { EXAMPLES, EXAMPLES_DIR, loadExample, runnableNow } from './examples';
import type { Session } from './session';
import { allRunsOf, withStandIns, type Row } from './startingExamples';

/** Sets options of the example's Import Lead, as a user would in the editor. */
function withImportOptions(workflow: WorkflowJson, options: Row = {}): WorkflowJson {
	const node = workflow.nodes.find((candidate) => candidate.name === 'Import Lead')!;
	node.parameters.options = { ...(node.parameters.options as Row), ...options };
	return workflow;
}

/** A file the example wrote, without the BOM ('' when it wrote none). */
const readCsv = (file: string) =>
	fs.existsSync(file) ? fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '') : '';

export interface CsvRun {
	run: ServerRunResult;
	/** What Extract Rows read. */
	rows: Row[];
	/** Import Lead's output items on each branch, with the CSV row (index, name, phone) of each. */
	imported: Array<{ row: number; name: string; phone: string; output: Row }>;
	rejected: CsvRun['imported'];
	rejectedFile: string;
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
		loadExample(EXAMPLES.importLeads, session.filesDir),
		setup.options,
	);
	const read = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.readWriteFile')!;
	if (setup.read !== undefined) read.parameters.fileSelector = setup.read;
	else
		fs.copyFileSync(path.join(EXAMPLES_DIR, 'leads.csv'), path.join(session.filesDir, 'leads.csv'));
	const run = await session.server.runWorkflow(workflow, [credential]);
	const rows = nodeOutput(run.run, 'Extract Rows').map((item) => item.json);
	// The CSV row an Import Lead output item came from, by its pairing.
	const output = (branch: number) =>
		nodeOutput(run.run, 'Import Lead', branch).map(({ json, pairedItem }) => {
			const row = (pairedItem as { item: number }).item;
			const [name, phone] = [rows[row]?.name, rows[row]?.phone].map((v) => String(v ?? ''));
			return { row, name, phone, output: json };
		});
	const rejectedCsv = readCsv(rejectedFile);
	return { run, rows, imported: output(0), rejected: output(1), rejectedFile, rejectedCsv };
}

/**
 * import-leads-from-google-sheets.json, deployed once (so Skip Unchanged Leads remembers across
 * runs) with Import Lead's `options` set as a user would (Dry Run), over a stand-in sheet: `rows`
 * (each with its row_number, as Get Rows gives), which each run updates as "Write Result to the
 * Row" would. `written`: what a run wrote (row number and result), by row.
 */
export async function deployGoogleSheetsExample(
	session: Session,
	credential: CredentialJson,
	rows: Row[],
	options: Row = {},
) {
	const workflow = withStandIns(
		withImportOptions(loadExample(EXAMPLES.googleSheets, session.filesDir), options),
		{ name: 'Get Rows', field: 'rows' },
		['Write Result to the Row'],
	);
	const deployed = await session.server.deployRunnable(workflow, [credential]);
	const sheet = rows.map((row) => ({ ...row }));
	return {
		sheet,
		async run(): Promise<{ run: ServerRunResult; written: Row[] }> {
			const run = await deployed.run({ rows: sheet });
			const written = allRunsOf(run, 'Write Result to the Row').sort(
				(a, b) => Number(a.row_number) - Number(b.row_number),
			);
			for (const { row_number, result } of written) {
				sheet.find((row) => row.row_number === row_number)!.result = result;
			}
			return { run, written };
		},
	};
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
		runnableNow(loadExample(EXAMPLES.hubspotSync, session.filesDir)),
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
	const properties: Row = {
		firstname: { value: name.slice(0, at) },
		lastname: { value: name.slice(at + 1) },
	};
	if (phone !== undefined) properties.phone = { value: phone };
	return { vid, properties };
}

/** Polls `attempt` every 200 ms until it returns a value, or fails after `ms`. */
async function within<T>(ms: number, attempt: (last: boolean) => Promise<T | undefined>) {
	const deadline = Date.now() + ms;
	for (;;) {
		const result = await attempt(Date.now() > deadline);
		if (result !== undefined) return result;
		await sleep(200);
	}
}

/** The data table lead-form.json's note has users create, as they would. */
export const FORM_ANSWERS_TABLE = {
	name: 'Form answers to import',
	columns: ['name', 'phone', 'campaign', 'submittedAt', 'reason'],
};

export interface FormSubmission {
	/** The words of the page n8n sends the person to. */
	page: string;
	/** The rows this submission added to the Form answers to import table. */
	kept: Row[];
}

/**
 * lead-form.json, published, with its Form answers to import table created and picked in Keep
 * the Answer: each `submit` fills the form as a browser does (its fields as field-0,
 * field-1...). `downloadCsv`: the table's Download CSV.
 */
export async function publishLeadFormExample(
	session: Session,
	credential: CredentialJson,
): Promise<{
	submit(name: string, phone: string): Promise<FormSubmission>;
	downloadCsv(): Promise<string>;
}> {
	const { server } = session;
	await server.createCredential(credential);
	const table = await server.createDataTable(FORM_ANSWERS_TABLE.name, FORM_ANSWERS_TABLE.columns);
	const workflow = loadExample(EXAMPLES.leadForm, session.filesDir);
	const keep = workflow.nodes.find((node) => node.name === 'Keep the Answer')!;
	keep.parameters.dataTableId = { __rl: true, mode: 'list', value: table.id };
	await server.deployWorkflow(workflow);
	const trigger = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger')!;
	const formPath = (trigger.parameters.options as { path: string }).path;
	const submit = async (name: string, phone: string): Promise<FormSubmission> => {
		const before = (await table.rows()).length;
		const form = new FormData();
		form.append('field-0', name);
		form.append('field-1', phone);
		// 2.x registers a published form a moment after the call that published it.
		const waitingUrl = await within(20_000, async (last) => {
			const res = await fetch(`${server.baseUrl}/form/${formPath}`, { method: 'POST', body: form });
			const text = await res.text();
			if (res.status === 404 && !last) return undefined;
			if (res.status !== 200) throw new Error(`the form answered ${res.status}: ${text}`);
			return (JSON.parse(text) as { formWaitingUrl: string }).formWaitingUrl;
		});
		const waiting = new URL(waitingUrl);
		const page = `${server.baseUrl}${waiting.pathname}${waiting.search}`;
		// As the form page's script does, first ask n8n whether the run has reached the next page
		// (n8n holds a page request for a running execution without answering), then open it. Up
		// to a minute: an import the service refuses with 503 is retried for about 15 seconds.
		const status = `${server.baseUrl}${waiting.pathname}/n8n-execution-status${waiting.search}`;
		await within(60_000, async (last) => {
			const state = await (await fetch(status, { signal: AbortSignal.timeout(5_000) })).text();
			if (last && state !== 'form-waiting')
				throw new Error(`the form's run did not reach its next page: ${state}`);
			return state === 'form-waiting' || undefined;
		});
		const html = await (await fetch(page, { signal: AbortSignal.timeout(10_000) })).text();
		// The words of the page, without its markup.
		const words = html
			.replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
			.replace(/<[^>]+>/g, ' ')
			.replace(/&#39;/g, "'")
			.replace(/\s+/g, ' ');
		return { page: words, kept: (await table.rows()).slice(before) };
	};
	return { submit, downloadCsv: table.downloadCsv };
}
