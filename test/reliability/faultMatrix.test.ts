/**
 * The fault matrix: every fault of the emulator against Import Lead (8 leads), List Calls
 * (3 items of 2 pages) and Get Recording with Download (4 calls), run through n8n-core's
 * real WorkflowExecute. Each run must account for every input item (success + error = in,
 * paired), send nothing twice except retries, give clear error messages and leak no key.
 * Each run also leaves a row for RELIABILITY.md (see report.ts).
 */
import { startEmulator } from '../emulator';
import { placesContaining } from './support/audit';
import { OutputCapture } from './support/capture';
import { keyWithAllScopes, sentinelKey } from './support/keys';
import type { Operation } from './support/operations';
import { OPERATIONS } from './support/operations';
import { ResultsCollector } from './support/results';
import type { Scenario } from './support/scenarios';
import { SCENARIOS, expectationFor, expectationProblems } from './support/scenarios';

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
		const emulator = await startEmulator({
			rateLimit: false,
			keys: keyWithAllScopes(apiKey),
			...operation.emulatorOptions,
		});
		try {
			const { name, faultPath: path, successStatus } = operation;
			for (const fault of scenario.faults({ operation: name, path, successStatus })) {
				emulator.inject(fault);
			}
			const run = await operation.run(emulator, apiKey, scenario.options ?? {});

			const leakedTo = placesContaining(apiKey, {
				'execution data': JSON.stringify(run.result.run),
				'console and standard streams': capture.text(),
			});
			const keyToFileHost = emulator.fileRequests.filter(
				(request) => request.headers.authorization,
			);
			const problems = [
				...run.problems,
				...expectationProblems(run, expectationFor(scenario, operation.name)),
				...leakedTo.map((place) => `the API key appears in the ${place}`),
				...keyToFileHost.map((request) => `Authorization sent to the file host: ${request.path}`),
			];
			results.add(order, {
				scenario: scenario.name,
				operation: operation.name,
				itemsIn: run.itemsIn,
				success: run.success,
				error: run.error,
				requestsSent: run.requestsSent,
				retries: run.retries,
				lost: run.lost,
				leaked: leakedTo.length + keyToFileHost.length,
				problems,
			});

			expect(problems).toEqual([]);
			expect(run.lost).toBe(0);
		} finally {
			await emulator.stop();
		}
	});
});
