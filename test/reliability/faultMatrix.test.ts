/**
 * The fault matrix: every fault of the emulator against Import Lead (8 leads), List Calls
 * (3 items of 2 pages) and Get Recording with Download (4 calls), run through n8n-core's
 * real WorkflowExecute. Each run must account for every input item (success + error = in,
 * paired), send nothing twice except retries, give clear error messages and leak no key.
 * Each run also leaves a row for RELIABILITY.md (see report.ts).
 */
import { OutputCapture } from './support/capture';
import { sentinelKey } from '../../devkit/reliability/keys';
import type { Operation } from '../../devkit/reliability/operations';
import { OPERATIONS } from '../../devkit/reliability/operations';
import { ResultsCollector } from '../../devkit/reliability/results';
import type { Scenario } from '../../devkit/reliability/scenarios';
import { runScenario } from '../../devkit/reliability/runScenario';
import { SCENARIOS } from '../../devkit/reliability/scenarios';

const results = new ResultsCollector('fault-matrix');
const capture = new OutputCapture();
beforeAll(() => capture.install());
afterAll(() => {
	capture.restore();
	results.write();
});

const cases = OPERATIONS.flatMap((operation) =>
	SCENARIOS.filter((scenario) => scenario.only?.includes(operation.name) ?? true).map(
		(scenario): [string, Operation, Scenario] => [
			`${operation.name}: ${scenario.name}`,
			operation,
			scenario,
		],
	),
).map(([title, operation, scenario], order) => ({ title, operation, scenario, order }));

describe('Fault matrix through the execution engine', () => {
	test.concurrent.each(cases)('$title', async ({ operation, scenario, order }) => {
		const apiKey = sentinelKey(`fault matrix: ${operation.name} / ${scenario.name}`);
		const { run, row } = await runScenario(operation, scenario, apiKey, operation.name, (done) => ({
			'execution data': JSON.stringify(done.result.run),
			'console and standard streams': capture.text(),
		}));
		results.add(order, row);
		expect(row.problems).toEqual([]);
		expect(run.lost).toBe(0);
	});
});
