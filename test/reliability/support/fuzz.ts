import type { IDataObject } from 'n8n-workflow';

import type { Emulator, EmulatorOptions } from '../../../devkit/emulator';
import { startEmulator } from '../../../devkit/emulator';
import { nodeName, run, workflowFrom } from '../../../devkit/engine/fixtures';
import { account, placesContaining } from '../../../devkit/reliability/audit';
import { keyWithAllScopes, sentinelKey } from '../../../devkit/reliability/keys';
import { ResultsCollector, emptyRow } from '../../../devkit/reliability/results';

/**
 * What the fuzz suites share: one emulator for the file that knows only a sentinel key, one
 * RELIABILITY.md row per property adding up its runs, and the checks every run gets whatever
 * the values: the workflow does not stop, each item ends in exactly one output with a clear
 * message, the key is nowhere in the execution data.
 */
export function useFuzz(suite: string, label: string, emulatorOptions: EmulatorOptions = {}) {
	const apiKey = sentinelKey(`fuzz: ${label}`);
	const results = new ResultsCollector(suite);
	let emulator: Emulator | undefined;
	let order = 0;
	beforeAll(async () => {
		const keys = keyWithAllScopes(apiKey);
		emulator = await startEmulator({ rateLimit: false, keys, ...emulatorOptions });
	});
	afterAll(async () => {
		await emulator?.stop();
		results.write();
	});

	/** A property: its row, and its runs, checked and counted in the row. */
	function property(scenario: string, operation: string) {
		const row = emptyRow(scenario, operation);
		results.add(order++, row);
		async function runChecked(
			template: Parameters<typeof workflowFrom>[0],
			items: object[],
			parameters: IDataObject,
		) {
			emulator!.reset();
			const workflow = workflowFrom(template, { items: items as IDataObject[], parameters });
			const credentials = { baseUrl: emulator!.baseUrl, apiKey, requestsPerMinute: 0 };
			const result = await run(workflow, credentials);
			const output = result.output(nodeName(workflow));
			const accounting = account(items.length, output, template === 'listCalls');
			const { requests, fileRequests } = emulator!;
			row.itemsIn += items.length;
			row.success += items.length - accounting.error.size;
			row.error += accounting.error.size;
			row.requestsSent += requests.length + fileRequests.length;
			expect(result.error).toBeUndefined();
			expect(accounting.problems).toEqual([]);
			expect(accounting.missing).toEqual([]);
			const places = { 'execution data': JSON.stringify(result.run) };
			expect(placesContaining(apiKey, places)).toEqual([]);
			return { accounting, requests };
		}

		/** The property's body, recording its first failures in the row before fast-check shrinks them. */
		function recorded<A extends unknown[]>(body: (...args: A) => Promise<void>) {
			return async (...args: A) => {
				try {
					await body(...args);
				} catch (error) {
					if (row.problems!.length < 5)
						row.problems!.push(String((error as Error).message).slice(0, 300));
					throw error;
				}
			};
		}
		return { runChecked, recorded };
	}

	return { emulator: () => emulator!, property };
}
