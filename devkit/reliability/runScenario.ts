import { startEmulator } from '../emulator';
import { placesContaining } from './audit';
import { keyWithAllScopes } from './keys';
import type { Operation, OperationRun } from './operations';
import type { ResultRow } from './results';
import type { Scenario } from './scenarios';
import { expectationFor, expectationProblems } from './scenarios';

/**
 * One fault-matrix scenario, wherever it runs (engine or real n8n): an emulator with the
 * sentinel key and the scenario's faults, the operation's run, and the row that says what it
 * showed. `placesToSearch` names where the key must not appear for this kind of run.
 */
export async function runScenario(
	operation: Operation,
	scenario: Scenario,
	apiKey: string,
	label: string,
	placesToSearch: (run: OperationRun) => Record<string, string>,
): Promise<{ run: OperationRun; row: ResultRow }> {
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
		const leakedTo = placesContaining(apiKey, placesToSearch(run));
		const keyToFileHost = emulator.fileRequests.filter((request) => request.headers.authorization);
		const problems = [
			...run.problems,
			...expectationProblems(run, expectationFor(scenario, operation.name)),
			...leakedTo.map((place) => `the API key appears in the ${place}`),
			...keyToFileHost.map((request) => `Authorization sent to the file host: ${request.path}`),
		];
		const row: ResultRow = {
			scenario: scenario.name,
			operation: label,
			itemsIn: run.itemsIn,
			success: run.success,
			error: run.error,
			requestsSent: run.requestsSent,
			retries: run.retries,
			lost: run.lost,
			leaked: leakedTo.length + keyToFileHost.length,
			problems,
		};
		return { run, row };
	} finally {
		await emulator.stop();
	}
}
