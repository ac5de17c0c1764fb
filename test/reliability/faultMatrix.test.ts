/**
 * The fault matrix: every fault of the emulator against Import Lead (8 leads), List Calls
 * (4 items: three Limits of 2 pages, Return All over 3 pages) and Get Recording with Download
 * (4 calls), run through n8n-core's real WorkflowExecute. Each run must account for every input
 * item (success + error = in, paired), send nothing twice except retries, give clear error
 * messages and leak no key. Each run also leaves a row for RELIABILITY.md (see report.ts).
 */
import { captureOutput } from './support/harness';
import { sentinelKey } from '../../devkit/reliability/keys';
import { OPERATIONS } from '../../devkit/reliability/operations';
import { collectResults } from '../../devkit/reliability/results';
import { matrix, runScenario } from '../../devkit/reliability/runScenario';
import { SCENARIOS } from '../../devkit/reliability/scenarios';

const results = collectResults('fault-matrix');
let capture: ReturnType<typeof captureOutput>;
beforeAll(() => (capture = captureOutput()));
afterAll(() => {
	capture.restore();
	results.write();
});

describe('Fault matrix through the execution engine', () => {
	test.concurrent.each(matrix(OPERATIONS, SCENARIOS))(
		'$title',
		async ({ operation, scenario, order }) => {
			const apiKey = sentinelKey(`fault matrix: ${operation.name} / ${scenario.name}`);
			const row = await runScenario(operation, scenario, apiKey, (done) => ({
				'execution data': JSON.stringify(done.run),
				'console and standard streams': capture.text(),
			}));
			results.add(order, row);
			expect(row.problems).toEqual([]);
			expect(row.lost).toBe(0);
		},
	);
});
