/**
 * Real queue mode: Postgres, Redis, `n8n start` and two `n8n worker` processes sharing one user
 * folder with the package installed from its tarball (devkit/n8n/queue). The workflow is
 * published and driven through its production webhook, so the workers run the executions.
 * Each worker has its own rate budget for the key, so two executions at once send more than
 * the server allows: nothing may be lost or doubled, and the 429s must stay bounded.
 * The trigger runs there too: the main process polls (and holds calls whose recording is still
 * being processed), the workers run the executions. About 2 minutes, most of it starting the
 * processes.
 */
import { sleep } from 'n8n-workflow';
import { buildAndInstall } from '../../devkit/demo/build';
import {
	credentialJson,
	leads,
	nodeWorkflow,
	parameters,
	triggerWorkflow,
	withItems,
} from '../../devkit/workflows';
import {
	createN8nSandbox,
	startN8nQueue,
	toWebhookWorkflow,
	type N8nQueue,
	type N8nSandbox,
} from '../../devkit/n8n';
import { DEMO_KEYS, startEmulator, type Emulator } from '../../devkit/emulator';

jest.setTimeout(180_000);

/** 20 requests per 5 s = 240 per minute, the credential's budget, in a short window. */
const LIMIT = { limit: 20, windowMs: 5_000, algorithm: 'sliding-log' as const };
const REQUESTS_PER_MINUTE = (LIMIT.limit * 60_000) / LIMIT.windowMs;
const LEADS_PER_EXECUTION = 30;

let sandbox: N8nSandbox | undefined;
let queue: N8nQueue | undefined;
let emulator: Emulator | undefined;

beforeAll(async () => {
	sandbox = await createN8nSandbox();
	await buildAndInstall(sandbox.userFolder);
	emulator = await startEmulator({ rateLimit: LIMIT });
	queue = await startN8nQueue(sandbox, { workers: 2, concurrency: 1 });
}, 600_000);
afterAll(async () => {
	await queue?.stop();
	await emulator?.stop();
	sandbox?.cleanup();
});

/**
 * Two executions at once, one per worker, each importing its own leads: every lead imported
 * exactly once, as n8n and the server see it. Returns how many requests the server refused.
 */
async function importOnBothWorkers(id: string, from: number): Promise<number> {
	const [n8n, api] = [queue as N8nQueue, emulator as Emulator];
	const credential = credentialJson(id, {
		baseUrl: api.baseUrl,
		apiKey: DEMO_KEYS.full,
		requestsPerMinute: REQUESTS_PER_MINUTE,
		// Hidden field: the credential's budget window, as short as the server's.
		rateWindowSeconds: LIMIT.windowMs / 1000,
	});
	await n8n.main.createCredential(credential);
	const hookPath = `${id}-${Date.now()}`;
	const workflow = nodeWorkflow({
		parameters: parameters.importLead(),
		credential,
		onError: 'continueErrorOutput',
	});
	const workflowId = await n8n.main.deployWorkflow(toWebhookWorkflow(workflow, hookPath));
	api.reset();

	const batches = [leads(LEADS_PER_EXECUTION, from), leads(LEADS_PER_EXECUTION, from + 1000)];
	const answers = await Promise.all(
		batches.map((batch) => n8n.main.callWebhookWhenRegistered(hookPath, withItems(batch))),
	);

	// Each webhook answers with the node's success output: one imported lead per input item.
	if (answers.some((answer) => answer.status !== 200)) {
		throw new Error(`an execution failed: ${await n8n.lastError(workflowId)}`);
	}
	for (const [index, answer] of answers.entries()) {
		const phones = (answer.body as Array<{ phone_e164: string }>).map((lead) => lead.phone_e164);
		expect(phones).toEqual(batches[index].map((lead) => lead.phone));
	}
	// The server's view: every lead written exactly once.
	const all = batches.flat();
	expect([...api.leads.keys()].sort()).toEqual(all.map((lead) => lead.phone).sort());
	expect([...api.leads.values()].every((lead) => lead.writes === 1)).toBe(true);
	const statuses = api.requests.map((request) => request.status);
	expect(statuses.filter((status) => status === 201)).toHaveLength(all.length);
	expect(statuses.every((status) => status === 201 || status === 429)).toBe(true);

	// n8n's view: both executions succeeded, each on its own worker.
	const executions = await n8n.executions(workflowId);
	expect(executions.map((execution) => execution.status)).toEqual(['success', 'success']);
	const workers = executions.map((execution) => n8n.workerOf(execution.id));
	expect(new Set(workers)).toEqual(new Set(['worker-1', 'worker-2']));

	// Worker logs are new places a key could leak to.
	for (const worker of n8n.workers) expect(worker.service.log()).not.toContain(DEMO_KEYS.full);
	return statuses.filter((status) => status === 429).length;
}

test('two executions at once on two workers: every lead imported exactly once, 429s bounded', async () => {
	const rateLimited = await importOnBothWorkers('queue', 0);
	// Two budgets for one key against a server allowing one: each worker learns from its 429s.
	// Measured: 4 with the adaptive budget, 11-18 with even spacing per process.
	expect(rateLimited).toBeLessThanOrEqual(LEADS_PER_EXECUTION);
});

test("the same with a server that states the key's budget: the workers read one count, and rarely collide", async () => {
	(emulator as Emulator).setRateLimit({ ...LIMIT, headers: 'ietf' });
	try {
		const rateLimited = await importOnBothWorkers('queue-stated', 5000);
		// Measured: 0, 1 and 0 of 60 (n8n 2.40.7 twice, 1.123.81), where the same run without
		// headers draws 3-4. Timing and the ≤ 2% target are the bench's (bench/queue.ts).
		expect(rateLimited).toBeLessThanOrEqual(LEADS_PER_EXECUTION / 5);
	} finally {
		(emulator as Emulator).setRateLimit(LIMIT);
	}
});

test('the trigger in queue mode: the main polls and holds calls whose recording is processing; a worker runs each call once, with its file', async () => {
	const [n8n, api] = [queue as N8nQueue, emulator as Emulator];
	api.setRateLimit(false);
	const credential = credentialJson('queue-trigger', {
		baseUrl: api.baseUrl,
		apiKey: DEMO_KEYS.full,
	});
	await n8n.main.createCredential(credential);
	const workflowId = await n8n.main.deployWorkflow(
		// Never on schedule during the run (the default Poll Times): the test polls by re-publishing.
		triggerWorkflow({
			name: 'Queue trigger',
			credentialId: credential.id,
			credentialName: credential.name,
			parameters: { downloadRecording: true, options: { waitForRecording: 0.1 } },
		}),
	);
	await n8n.main.publicationStatus(workflowId);
	const poll = async () => await n8n.main.republish(workflowId);
	/**
	 * Finished executions with calls, oldest first, and their calls. A check that emitted calls
	 * ends with one without (where n8n saves the trigger's position): left out.
	 */
	const withCalls = async () => {
		// Queued ('new') and running executions have no items yet: only finished ones count.
		const done = (await n8n.executions(workflowId)).filter(
			(e) => !['new', 'running', 'waiting'].includes(e.status),
		);
		const runs = await Promise.all(
			done.reverse().map(async (execution) => {
				const runData = (await n8n.resultData(execution.id))?.runData;
				return { execution, items: runData?.['On New Call']?.[0]?.data?.main?.[0] ?? [] };
			}),
		);
		return runs.filter((run) => run.items.length > 0 || run.execution.status !== 'success');
	};
	const finished = async (count: number) => {
		for (let tries = 0; tries < 100; tries++) {
			const runs = await withCalls();
			if (runs.length >= count) return runs;
			await sleep(200);
		}
		throw new Error(`expected ${count} finished executions of the trigger workflow`);
	};

	api.setRecordingProcessing({ delayMs: 2_000, pendingAnswer: '202' });
	const added = Date.now();
	const late = api.addCalls(2, { status: 'completed', has_recording: true });
	const [missed] = api.addCalls(1, { status: 'missed', has_recording: false });
	// Still being processed when Wait for Recording (6 s) ends: held, and comes with its file.
	api.setRecordingProcessing({ delayMs: 10_000, pendingAnswer: '202' });
	const [slow] = api.addCalls(1, { status: 'completed', has_recording: true });
	await poll();
	await sleep(Math.max(0, added + 2_200 - Date.now()));
	await poll();
	// Past the wait (6 s) counted from the first poll's question, whenever that was.
	await sleep(Math.max(0, added + 8_000 - Date.now()));
	await poll();
	await poll();
	await sleep(Math.max(0, added + 10_500 - Date.now()));
	await poll();
	const runs = await finished(3);
	await sleep(1000);
	expect(await withCalls()).toHaveLength(3);

	const emitted = runs.map((run) => run.items);
	const executions = runs.map((run) => run.execution);
	expect(emitted.map((items) => items.map((item) => item.json.id))).toEqual([
		late.map((call) => call.id).reverse(),
		[missed.id],
		[slow.id],
	]);
	expect(emitted[0].every((item) => item.binary?.data !== undefined)).toBe(true);
	expect(emitted[1][0].json.recordingStatus).toBe('none');
	expect(emitted[2][0].json.recordingStatus).toBe('downloaded');
	expect(emitted[2][0].binary?.data).toBeDefined();
	expect(executions.map((execution) => execution.status)).toEqual([
		'success',
		'success',
		'success',
	]);
	// The workers ran them.
	expect(executions.every((execution) => n8n.workerOf(execution.id) !== undefined)).toBe(true);
	api.setRecordingProcessing({ delayMs: 0 });
});
