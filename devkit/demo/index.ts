/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run demo`: the package inside a real n8n, end to end, on the bundled API emulator.
 * Builds the package, installs n8n 2.40.7 into the cache if needed, installs the packed
 * tarball into a fresh n8n, runs the example workflows and prints what they did, in lines
 * readable in a 100-column terminal. Exit 0 when everything worked; the output files stay in
 * <tmp>/lead-call-access-demo.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { N8N_VERSION } from '../n8n';
import { DEMO_KEYS } from '../emulator';
import { EXAMPLES, exampleCredential, publishMcpExample } from './examples';
import { runCsvExample } from './leadExamples';
import type { McpClient } from './mcpClient';
import { runExportExample, runS3Example } from './recordingExamples';
import { startLocalS3 } from '../s3';
import { openSession, type Session } from './session';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const installer = require('../n8n/install.js') as { isComplete(): boolean; cacheDir(): string };

const OUTPUT_DIR = path.join(os.tmpdir(), 'lead-call-access-demo');
// The emulator enforces a per-key limit like the real service (which allows 60 a minute); the
// demo raises it so the run takes seconds, and gives the credential the same budget.
const RATE = { limit: 600, windowMs: 60_000 };
const MCP_TOKEN = 'demo-mcp-client-token';
/** New calls for the export: recordings ready 3 s after their call, the wait cut to 6 s. */
const EXPORT_DEMO = { recorded: 5, missed: 2, processingMs: 3_000, waitMs: 6_000 };

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const step = (text: string) => process.stdout.write(`[${elapsed().padStart(6)}] ${text}\n`);
const heading = (text: string) => process.stdout.write(`\n${text}\n`);
const line = (text = '') => process.stdout.write(`   ${text}\n`);

/** `text` in a column of `width`, shortened with "..." when longer. */
const column = (text: string, width: number) =>
	text.length <= width ? text.padEnd(width) : `${text.slice(0, width - 3)}...`;

/** A message after a label, wrapped at word boundaries to 94 columns (100 with the margin). */
function message(label: string, text: string): void {
	const lines = [''];
	for (const word of text.split(/\s+/).filter(Boolean)) {
		const last = lines.length - 1;
		if (lines[last] && lines[last].length + 1 + word.length > 94 - label.length) lines.push(word);
		else lines[last] = lines[last] ? `${lines[last]} ${word}` : word;
	}
	lines.forEach((part, index) => line(`${index === 0 ? label : ' '.repeat(label.length)}${part}`));
}

async function main(): Promise<void> {
	process.stdout.write(
		`Lead & Call Access demo: n8n ${N8N_VERSION} with this package, on the bundled API emulator\n\n`,
	);
	if (!installer.isComplete()) {
		step(`n8n ${N8N_VERSION} is not cached yet: installing it into ${installer.cacheDir()}`);
		step('(first run only: about 4 minutes on 2 cores and 3 GB of disk; progress below)');
	}
	fs.rmSync(OUTPUT_DIR, { recursive: true, force: true });
	fs.mkdirSync(OUTPUT_DIR, { recursive: true });

	const options = { emulator: { rateLimit: RATE }, filesDir: OUTPUT_DIR, log: step };
	const session = await openSession(options);
	try {
		step(`n8n is running at ${session.server.baseUrl}, package installed from its tarball`);
		step(`API emulator at ${session.emulator.baseUrl} (${RATE.limit} requests a minute per key)`);
		await runExamples(session);
	} finally {
		await session.close();
	}
	heading(`Done in ${elapsed()}. Files kept in ${OUTPUT_DIR}`);
}

async function runExamples(session: Session): Promise<void> {
	const credential = exampleCredential(session, DEMO_KEYS.full, RATE.limit);
	await session.server.createCredential(credential);
	const test = await session.server.testCredential(credential);
	const tested = `tested as the n8n editor does: ${test.status} (${test.message})`;
	heading(`Credential "${credential.name}" ${tested}`);
	if (test.status !== 'OK') throw new Error('the credential test failed');

	heading(`1. Import leads from a CSV file (examples/${EXAMPLES.importLeads})`);
	const { run, rows, imported, rejected, rejectedFile } = await runCsvExample(session, credential);
	if (run.run.status !== 'success') throw new Error('the import workflow failed');
	const counts = `${imported.length} imported, ${rejected.length} rejected`;
	line(`${rows.length} rows read from leads.csv: ${counts}`);
	for (const { name, phone, output } of imported) {
		const fixed = phone.startsWith('+') ? '' : '  (national number completed)';
		const e164 = String(output.phone_e164);
		line(`  imported  ${column(name, 18)} ${column(phone, 17)} -> ${e164}${fixed}`);
	}
	for (const row of rejected) {
		line(`  rejected  ${column(row.name, 18)} ${row.phone || '(empty)'}`);
		message('            ', String(row.output.error));
	}
	line(`Rejected rows with their reasons: ${rejectedFile}`);

	const at = 'checked now instead of at night';
	heading(`2. Export call recordings (examples/${EXAMPLES.exportRecordings}, ${at})`);
	const exported = await runExportExample(session, credential, EXPORT_DEMO);
	if (exported.executions.some((execution) => execution.status !== 'success')) {
		throw new Error('the export workflow failed');
	}
	const { saved, withoutRecording, emitted } = exported;
	const { recorded, missed, processingMs } = EXPORT_DEMO;
	const ready = `recordings ready ${processingMs / 1000} s after their call`;
	line(`${recorded + missed} new calls (${missed} missed), ${ready}; ${exported.polls} checks`);
	const kib = (saved.reduce((total, file) => total + file.bytes, 0) / 1024).toFixed(0);
	const types = [...new Set(saved.map((file) => file.mimeType))].join(', ');
	line(`${saved.length} recordings saved (${kib} KiB, ${types}) to ${session.filesDir}${path.sep}`);
	line(
		`  e.g. ${saved
			.slice(0, 3)
			.map((file) => path.basename(file.file))
			.join(', ')}, ...`,
	);
	const listed = `${withoutRecording.length} calls without a recording, listed in the missing-recordings file`;
	message('', `${listed}: ${withoutRecording.join(', ')}`);
	line(`Calls emitted twice: ${emitted.length - new Set(emitted).size}`);

	heading(`3. The operations as AI agent tools over MCP (examples/${EXAMPLES.aiTools})`);
	const { client } = await publishMcpExample(session, credential, MCP_TOKEN);
	line(`n8n serves MCP at ${client.url}`);
	line(
		`tools: ${(await client.listTools())
			.map((tool) => tool.name)
			.sort()
			.join(', ')}`,
	);
	await callTool(client, 'Import_Lead', { phone: '+14155552671', name: 'Ada Lovelace (CEO)' });
	await callTool(client, 'Get_Many_Calls', { limit: 3 });
	await callTool(client, 'Import_Lead', { phone: 'twelve' });

	const where = 'to a local S3 server, checked now';
	heading(`4. New recordings saved to S3 (examples/${EXAMPLES.s3}, ${where})`);
	const s3 = await startLocalS3('call-recordings');
	try {
		const night = { recorded: 2, missed: 1, processingMs: 0, waitMs: 3_000 };
		const uploads = await runS3Example(session, credential, s3, night);
		if (uploads.uploaded.size === 0) throw new Error('the S3 workflow uploaded no recording');
		const { executions } = uploads;
		const times = executions.length === 1 ? 'once' : `${executions.length} times`;
		const calls = `${uploads.emitted.join(', ')} (oldest first)`;
		message(
			'',
			`${uploads.emitted.length} new calls arrived; the checks started the workflow ${times} with ${calls}`,
		);
		for (const [key, bytes] of uploads.uploaded)
			line(`  uploaded ${s3.bucket}/${key} (${bytes.length} bytes)`);
		for (const callId of uploads.withoutRecording)
			line(`  missed   ${callId}: no recording, noted under recordings/missing/`);
	} finally {
		await s3.stop();
	}

	const stats = session.emulator.stats();
	const keyAtFileHost = session.emulator.fileRequests.some((r) => r.headers.authorization);
	heading(
		`The API answered ${stats.requests} requests (${stats.byStatus['429'] ?? 0} rate-limited); the file ` +
			`host ${stats.fileRequests} downloads, ${keyAtFileHost ? 'SOME' : 'none'} carrying the API key.`,
	);
}

/** Calls a tool as the agent would and prints what came back. */
async function callTool(client: McpClient, name: string, args: Record<string, unknown>) {
	const result = await client.callTool(name, args);
	line(`  ${name} ${JSON.stringify(args)}`);
	if (result.isError) return message('    -> ', `tool error: ${result.text.replace(/^\w+: /, '')}`);
	const [first, ...more] = JSON.parse(result.text) as Array<Record<string, unknown>>;
	const created = `${first.created ? 'created' : 'updated'} ${String(first.id)}`;
	const outcome =
		name === 'Import_Lead'
			? `${created}, name "${String(first.name)}"`
			: [first, ...more].map((item) => String(item.id)).join(', ');
	message('    -> ', outcome);
}

main().then(
	() => process.exit(0),
	(error: Error) => {
		process.stderr.write(`\ndemo failed: ${error.message}\n`);
		process.exit(1);
	},
);
