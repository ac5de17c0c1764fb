/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * What running items one at a time costs: Import Lead of N leads through n8n-core's engine
 * against the emulator behind a proxy that adds a fixed round-trip delay, with the default
 * error setting (one item at a time, so nothing is sent after a failing item) and with
 * "Continue" (a few items at a time). Prints a Markdown table; not part of `npm run bench`.
 *
 *   npx ts-node --transpile-only --prefer-ts-exts bench/itemConcurrency.ts  # env: LEADS=40 DELAY_MS=100
 */
import * as http from 'http';
import type { AddressInfo } from 'net';

import { workflowFrom } from '../devkit/engine/fixtures';
import { runWorkflow } from '../devkit/engine/harness';
import { leads } from '../devkit/workflows';
import { onCleanup, runBench } from './lib/cleanup';
import { startBenchEmulator } from './lib/n8n';

const LEADS = Number(process.env.LEADS ?? 40);
const DELAY_MS = Number(process.env.DELAY_MS ?? 100);

/** Forwards every request to `target` after `delayMs`, like an API far away. */
async function delayingProxy(target: string, delayMs: number): Promise<http.Server> {
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			setTimeout(() => {
				const upstream = http.request(
					new URL(req.url ?? '/', target),
					{ method: req.method, headers: req.headers },
					(answer) => {
						res.writeHead(answer.statusCode ?? 502, answer.headers);
						answer.pipe(res);
					},
				);
				upstream.end(Buffer.concat(chunks));
			}, delayMs);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	onCleanup('proxy', () => server.close());
	return server;
}

runBench('itemConcurrency', async () => {
	const { emulator, apiKey } = await startBenchEmulator({ rateLimit: false });
	const proxy = await delayingProxy(emulator.baseUrl, DELAY_MS);
	const baseUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
	const rows: string[] = [];
	for (const [label, onError] of [
		['stop on error (default): 1 item at a time', 'stopWorkflow'],
		['Continue: 8 items at a time', 'continueRegularOutput'],
	] as const) {
		emulator.reset();
		const workflow = workflowFrom('importLeads', { items: leads(LEADS), onError });
		const started = process.hrtime.bigint();
		const result = await runWorkflow(workflow, { baseUrl, apiKey, requestsPerMinute: 0 });
		const seconds = Number(process.hrtime.bigint() - started) / 1e9;
		const imported = result.output('Import Lead').success.length;
		rows.push(`| ${label} | ${imported}/${LEADS} | ${seconds.toFixed(2)} s |`);
	}
	console.log(`Import Lead, ${LEADS} leads, ${DELAY_MS} ms added per request, no rate limit:\n`);
	console.log('| items | imported | wall time |\n| --- | --- | --- |');
	console.log(rows.join('\n'));
});
