/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run demo`: the package inside a real n8n, end to end, on the bundled API emulator.
 * Builds the package, installs n8n 2.40.7 into the cache if needed, installs the packed
 * tarball into a fresh n8n, runs the example workflows and prints what they did.
 * Exit 0 when everything worked; the output files stay in <tmp>/lead-call-access-demo.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { N8N_VERSION } from '../n8n';
import { DEMO_KEYS } from '../emulator';
import { exampleCredential, EXAMPLE_FILES, publishMcpExample, runImportExample } from './examples';
import { runExportExample, runS3Example } from './recordingExamples';
import { STARTING_EXAMPLES } from './startingExamples';
import { startLocalS3 } from '../s3';
import {
	elapsed,
	exportReport,
	heading,
	importReport,
	step,
	toolCall,
	s3Report,
	toolsReport,
} from './report';
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

	const session = await openSession({
		emulator: { rateLimit: RATE },
		filesDir: OUTPUT_DIR,
		log: step,
	});
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
	heading(
		`Credential "${credential.name}" tested as the n8n editor does: ${test.status} (${test.message})`,
	);
	if (test.status !== 'OK') throw new Error('the credential test failed');

	heading(`1. Import leads from a CSV file (examples/${EXAMPLE_FILES.importLeads})`);
	const imported = await runImportExample(session, credential);
	if (imported.run.run.status !== 'success') throw new Error('the import workflow failed');
	importReport(imported);

	heading(
		`2. Export call recordings (examples/${EXAMPLE_FILES.exportRecordings}, checked now instead of at night)`,
	);
	const exported = await runExportExample(session, credential, EXPORT_DEMO);
	if (exported.executions.some((execution) => execution.status !== 'success')) {
		throw new Error('the export workflow failed');
	}
	exportReport(exported, EXPORT_DEMO, session.filesDir);

	heading(`3. The operations as AI agent tools over MCP (examples/${EXAMPLE_FILES.aiTools})`);
	const { client } = await publishMcpExample(session, credential, MCP_TOKEN);
	toolsReport(client.url, await client.listTools());
	await callTool(client, 'Import_Lead', { phone: '+14155552671', name: 'Ada Lovelace (CEO)' });
	await callTool(client, 'Get_Many_Calls', { limit: 3 });
	await callTool(client, 'Import_Lead', { phone: 'twelve' });

	heading(
		`4. New recordings saved to S3 (examples/${STARTING_EXAMPLES.s3}, to a local S3 server, checked now)`,
	);
	const s3 = await startLocalS3('call-recordings');
	try {
		const uploads = await runS3Example(session, credential, s3, {
			waitMs: 3_000,
			addCalls: () =>
				[
					...session.emulator.addCalls(2, { status: 'completed', has_recording: true }),
					...session.emulator.addCalls(1, { status: 'missed', has_recording: false }),
				].map((call) => call.id),
		});
		if (uploads.uploaded.size === 0) throw new Error('the S3 workflow uploaded no recording');
		s3Report(uploads, s3.bucket);
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

async function callTool(
	client: Awaited<ReturnType<typeof publishMcpExample>>['client'],
	name: string,
	args: Record<string, unknown>,
): Promise<void> {
	const result = await client.callTool(name, args);
	if (result.isError)
		return toolCall(name, args, `tool error: ${result.text.replace(/^\w+: /, '')}`);
	const items = JSON.parse(result.text) as Array<Record<string, unknown>>;
	const outcome =
		name === 'Import_Lead'
			? `${items[0].created ? 'created' : 'updated'} ${String(items[0].id)}, name "${String(items[0].name)}"`
			: items.map((item) => String(item.id)).join(', ');
	toolCall(name, args, outcome);
}

main().then(
	() => process.exit(0),
	(error: Error) => {
		process.stderr.write(`\ndemo failed: ${error.message}\n`);
		process.exit(1);
	},
);
