import type { IWorkflowBase } from 'n8n-workflow';

import { startEmulator } from '../emulator';
import { nodeName, run as runInEngine, workflowFrom } from '../engine/fixtures';
import type { TestCredentials, WorkflowResult } from '../engine/harness';
import { account, placesContaining } from './audit';
import { keyWithAllScopes } from './keys';
import type { Operation } from './operations';
import type { ResultRow } from './results';
import type { Expectation, Scenario } from './scenarios';

/** What runs an operation's workflow: n8n-core in-process, or a real n8n (test/e2e/faults). */
export type WorkflowRunner = (
	workflow: IWorkflowBase,
	credentials: TestCredentials,
) => Promise<WorkflowResult>;

/** Every scenario that applies to each operation, in order, titled by both. */
export function matrix(operations: Operation[], scenarios: Scenario[]) {
	return operations
		.flatMap((operation) =>
			scenarios
				.filter((scenario) => (scenario.only ?? operation.name) === operation.name)
				.map((scenario) => ({ operation, scenario })),
		)
		.map((testCase, order) => ({
			...testCase,
			order,
			title: `${testCase.operation.name}: ${testCase.scenario.name}`,
		}));
}

/** The scenario's own expectation: how many items fail, and what their messages say. */
function expectationProblems(row: ResultRow, messages: string[], expected: Expectation) {
	const { errors, message } = expected;
	const failing = errors === 'none' ? 0 : errors === 'all' ? row.itemsIn : errors;
	const problems = messages
		.filter((text) => message && !message.test(text))
		.map((text) => `error message does not match ${String(message)}: ${text}`);
	if (row.error !== failing || row.success !== row.itemsIn - failing) {
		problems.unshift(
			`expected ${failing} error item(s), got ${row.success} success / ${row.error} error`,
		);
	}
	return problems;
}

/**
 * One fault-matrix scenario, wherever it runs (engine or real n8n): an emulator with the
 * sentinel key and the scenario's faults, the operation's workflow through `runWorkflow`
 * (default: n8n-core in-process), and the row that says what it showed: every input item in
 * exactly one output with a clear message, the operation's own checks, the scenario's
 * expectation, the key in none of `placesToSearch` and never sent to the file host.
 */
export async function runScenario(
	operation: Operation,
	scenario: Scenario,
	apiKey: string,
	placesToSearch: (result: WorkflowResult) => Record<string, string>,
	runWorkflow: WorkflowRunner = runInEngine,
): Promise<ResultRow> {
	const emulator = await startEmulator({
		rateLimit: false,
		keys: keyWithAllScopes(apiKey),
		...operation.emulatorOptions,
	});
	try {
		const { name, template, parameters } = operation;
		for (const fault of scenario.faults(operation)) emulator.inject(fault);
		const items = operation.items(emulator);
		const options = { ...scenario.options, ...parameters.options };
		const workflow = workflowFrom(template, { items, parameters: { ...parameters, options } });
		const credentials = { baseUrl: emulator.baseUrl, apiKey, requestsPerMinute: 0 };
		const result = await runWorkflow(workflow, credentials);
		const output = result.output(nodeName(workflow));
		const accounting = account(items.length, output, template === 'listCalls');
		const { lost, problems, retries } = await operation.check(emulator, items, accounting);
		if (result.error) problems.push(`the workflow stopped: ${result.error.message}`);
		const leakedTo = placesContaining(apiKey, placesToSearch(result));
		const keyToFileHost = emulator.fileRequests.filter((request) => request.headers.authorization);
		const row: ResultRow = {
			scenario: scenario.name,
			operation: operation.name,
			itemsIn: items.length,
			success: accounting.success.size,
			error: accounting.error.size,
			requestsSent: emulator.requests.length + emulator.fileRequests.length,
			retries,
			lost: lost + accounting.missing.length,
			leaked: leakedTo.length + keyToFileHost.length,
		};
		const messages = [...accounting.error.values()].map((item) => String(item.json.error));
		const expected =
			typeof scenario.expect === 'function' ? scenario.expect(name) : scenario.expect;
		row.problems = [
			...accounting.problems,
			...problems,
			...expectationProblems(row, messages, expected),
			...leakedTo.map((place) => `the API key appears in the ${place}`),
			...keyToFileHost.map((request) => `Authorization sent to the file host: ${request.path}`),
		];
		return row;
	} finally {
		await emulator.stop();
	}
}
