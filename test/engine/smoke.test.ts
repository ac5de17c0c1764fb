import { DEMO_KEYS, startEmulator } from '../emulator';
import { runWorkflow } from './harness';
import workflow from '../workflows/import-leads.json';

test('smoke', async () => {
	const emulator = await startEmulator({ rateLimit: false });
	try {
		const wf = JSON.parse(JSON.stringify(workflow));
		wf.nodes[0].parameters.items = JSON.stringify([
			{ phone: '+14155552671', name: 'Ada' },
			{ phone: 'bad', name: 'Bob' },
			{ name: 'NoPhone' },
		]);
		const result = await runWorkflow(wf, { baseUrl: emulator.baseUrl, apiKey: DEMO_KEYS.full });
		console.log(JSON.stringify(result.output('Import Lead'), null, 1), result.error);
	} finally {
		await emulator.stop();
	}
});
