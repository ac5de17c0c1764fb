/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The fault matrix of test/reliability in a real n8n (either line), the package installed from
 * its tarball, binary data in n8n's filesystem store: one scenario of each kind of fault n8n's
 * own HTTP stack sees. The very same operations, workflows and checks (devkit/reliability), run
 * by deploying each workflow to n8n and reading back the execution it stored. Rows go to
 * RELIABILITY.md as `real n8n`. The key is searched for in the whole database and debug log.
 */
import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IRun } from 'n8n-workflow';
import { join } from 'path';

import { openSession, type Session } from '../../devkit/demo/session';
import type { NodeOutput, WorkflowResult } from '../../devkit/engine/harness';
import { readDatabaseText, storedOutput, type StoredExecution } from '../../devkit/n8n';
import { placesContaining } from '../../devkit/reliability/audit';
import { sentinelKey } from '../../devkit/reliability/keys';
import { getRecording, importLead, listCalls } from '../../devkit/reliability/operations';
import { collectResults, emptyRow } from '../../devkit/reliability/results';
import { matrix, runScenario, type WorkflowRunner } from '../../devkit/reliability/runScenario';
import { SCENARIOS } from '../../devkit/reliability/scenarios';
import { nodeWorkflow } from '../../devkit/workflows';

jest.setTimeout(120_000);

const REAL_N8N_SCENARIOS = [
	'no fault (baseline)',
	'503 burst of 1',
	'429 storm x8, Retry-After: 1',
	'connection reset before the body x3',
	'connection reset after the body x3',
	'server hangs x2 (Timeout 1 s)',
	'malformed JSON in the 2xx body x1',
	'empty 2xx body x1',
	'signed URL expired (file host 403)',
	'truncated recording body x2',
];
const cases = matrix(
	[importLead, listCalls, getRecording],
	SCENARIOS.filter((scenario) => REAL_N8N_SCENARIOS.includes(scenario.name)),
).map((testCase) => ({
	...testCase,
	// A key per run: a leak names its run, and n8n's process-wide rate budget keeps runs apart.
	apiKey: sentinelKey(
		`real n8n fault matrix: ${testCase.operation.name} / ${testCase.scenario.name}`,
	),
}));

const results = collectResults('fault-matrix-real-n8n', 'real n8n');
let session: Session;
let runs = 0;

/**
 * The engine workflow (Items → the node) as n8n runs it: a Manual Trigger, which the server
 * swaps for a webhook, and a Split Out of the items sent in the webhook's body.
 */
const inRealN8n: WorkflowRunner = async (workflow, credentials) => {
	const [source, node] = workflow.nodes;
	// Its id and name hold no key: both are stored and shown in n8n.
	const credential = session.credential(`faults-${++runs}`, credentials);
	const real = nodeWorkflow({
		source: 'manual',
		nodeName: node.name,
		parameters: node.parameters,
		credential,
		onError: node.onError as 'continueErrorOutput' | undefined,
	});
	const items = JSON.parse(String(source.parameters.items)) as unknown[];
	const { run, stored } = await session.server.runWorkflow(real, [credential], { items });
	const output = (name: string) =>
		({
			success: storedOutput(stored, name, 0),
			error: storedOutput(stored, name, 1),
		}) as NodeOutput;
	const error = run.data.resultData.error as WorkflowResult['error'];
	return { run: run as unknown as IRun, error, output, stored } as WorkflowResult;
};

beforeAll(async () => {
	// Debug logging is where a careless node or helper would print request options.
	session = await openSession({ emulator: { rateLimit: false }, env: { N8N_LOG_LEVEL: 'debug' } });
	// Get Recording's check reads the downloaded bytes through n8n-core's BinaryDataService: point
	// it at the folder where this n8n stores binary data (filesystem mode, the sandbox default).
	process.env.N8N_BINARY_DATA_STORAGE_PATH = join(session.sandbox.userFolder, '.n8n', 'storage');
	await Container.get(BinaryDataService).init();
}, 600_000);

afterAll(async () => {
	// Without a server nothing ran: keep the previous results rather than write an empty table.
	if (runs > 0) results.write();
	await session?.close();
});

describe('Fault matrix in a real n8n', () => {
	test.each(cases)('$title', async ({ operation, scenario, order, apiKey }) => {
		const placesToSearch = (result: WorkflowResult) => {
			const { stored } = result as WorkflowResult & { stored: StoredExecution };
			return {
				'stored execution data': `${stored.rawData ?? ''}\n${stored.rawWorkflowData ?? ''}`,
				'n8n server log': session.serverLog(),
			};
		};
		// A run that broke off still gets its row, so RELIABILITY.md shows it failing.
		const row = await runScenario(operation, scenario, apiKey, placesToSearch, inRealN8n).catch(
			(error: Error) => ({
				...emptyRow(scenario.name, operation.name),
				problems: [`the run failed: ${error.message}`],
			}),
		);
		results.add(order, row);
		expect(row.problems).toEqual([]);
		expect(row.lost).toBe(0);
	});

	// Runs last: every sentinel key has been used by now, in runs that succeeded and failed.
	test('no sentinel key anywhere in the database or the whole server log', async () => {
		const database = await readDatabaseText(session.sandbox);
		const log = session.serverLog();
		// The search must cover something: failed items are stored, and the log is at debug level.
		expect(database).toContain("refused the recording's download link, even a fresh one (403)");
		expect(log).toMatch(/\| debug \| Running node "Get Recording" started/);
		const leaks = cases.flatMap(({ title, apiKey }) =>
			placesContaining(apiKey, { database, 'n8n server log': log }).map((at) => `${title}: ${at}`),
		);
		expect(leaks).toEqual([]);
	});
});
