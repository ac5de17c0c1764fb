/**
 * Import Lead › Skip Unchanged Leads in a real n8n (1.x and 2.x: LCA_N8N_VERSION), with n8n's own
 * deduplication store in its database: first in one `n8n start` (SQLite), killed with SIGKILL in
 * the middle of an import and started again; then in queue mode (Postgres, Redis, two workers),
 * the worker running the import killed the same way. After each kill the workflow runs again and
 * every lead must be at the service, the ones accepted before the kill not sent again (except
 * those whose answers the kill cut off), and a third run sends nothing.
 */
import { sleep } from 'n8n-workflow';

import { buildAndInstall } from '../../devkit/demo/build';
import { DEMO_KEYS, startEmulator, type Emulator } from '../../devkit/emulator';
import {
	createN8nSandbox,
	startN8nQueue,
	startN8nServer,
	toWebhookWorkflow,
	type N8nQueue,
	type N8nSandbox,
	type N8nServer,
} from '../../devkit/n8n';
import {
	credentialJson,
	leads,
	nodeWorkflow,
	parameters,
	withItems,
	type Lead,
} from '../../devkit/workflows';

jest.setTimeout(300_000);

/** Paced at 5 requests a second: 30 leads take 6 s, long enough to kill n8n in the middle. */
const PACING = { requestsPerMinute: 300, rateWindowSeconds: 1 };
const LEADS = 30;
/** Items the node imports at once with On Error: Continue (actions/router.ts). */
const IN_FLIGHT = 8;
/** Kill once this many leads are at the service. */
const KILL_AFTER = 8;

let sandbox: N8nSandbox | undefined;
let emulator: Emulator;

beforeAll(async () => {
	sandbox = await createN8nSandbox();
	await buildAndInstall(sandbox.userFolder);
	emulator = await startEmulator({ rateLimit: false });
}, 600_000);
afterAll(async () => {
	await emulator?.stop();
	sandbox?.cleanup();
});

/** The sync workflow (webhook → Split Out → Import Lead with the option on), published. */
async function deploySync(n8n: N8nServer, credentialId: string): Promise<string> {
	const credential = credentialJson(credentialId, { ...PACING, ...key() });
	await n8n.createCredential(credential);
	const hookPath = `sync-${credentialId}-${Date.now()}`;
	const workflow = nodeWorkflow({
		parameters: parameters.importLead({ skipUnchanged: true }),
		credential,
		onError: 'continueErrorOutput',
		typeVersion: 2,
	});
	await n8n.deployWorkflow(toWebhookWorkflow(workflow, hookPath));
	return hookPath;
}

type OutputItem = { phone_e164: string; skipped: boolean };

/** Runs the sync and returns the node's success output (the webhook answers with it). */
async function runSync(n8n: N8nServer, hookPath: string, list: Lead[]): Promise<OutputItem[]> {
	const answer = await n8n.callWebhookWhenRegistered(hookPath, withItems(list), 60_000);
	if (answer.status !== 200) throw new Error(`sync failed: ${JSON.stringify(answer.body)}`);
	return answer.body as OutputItem[];
}

/** Phones of the leads the service accepted, from the `from`-th request on. */
const key = () => ({ baseUrl: emulator.baseUrl, apiKey: DEMO_KEYS.full });
const sentPhones = (from = 0) =>
	emulator.requests
		.slice(from)
		.filter((request) => request.path === '/v1/leads' && request.status === 201)
		.map((request) => JSON.parse(request.body).phone_e164 as string);

/** Phones the service had accepted when the kill came, and requests it had received by then. */
type Kill = { accepted: Set<string>; requests: number };

/** Starts a sync and kills what runs it once KILL_AFTER leads are at the service. */
async function killMidImport(
	start: () => Promise<unknown>,
	kill: () => Promise<void>,
): Promise<Kill> {
	emulator.reset();
	// The call fails or never answers once its execution is killed: nothing to wait for.
	void start().catch(() => undefined);
	const deadline = Date.now() + 60_000;
	while (emulator.leads.size < KILL_AFTER) {
		if (Date.now() > deadline) throw new Error(`${emulator.leads.size} leads before the kill`);
		await sleep(20);
	}
	await kill();
	// An answer already on its way is counted: the service accepted it.
	await sleep(200);
	return { accepted: new Set(emulator.leads.keys()), requests: emulator.requests.length };
}

/**
 * Re-runs the sync after the kill: every lead at the service, the accepted ones not sent again
 * but for those in flight; then a third run sends nothing.
 */
async function expectResumed(n8n: N8nServer, hookPath: string, list: Lead[], kill: Kill) {
	const rerun = await runSync(n8n, hookPath, list);
	const acceptedBeforeKill = kill.accepted;
	expect([...emulator.leads.keys()].sort()).toEqual(list.map((lead) => lead.phone).sort());
	expect(acceptedBeforeKill.size).toBeGreaterThanOrEqual(KILL_AFTER);
	expect(acceptedBeforeKill.size).toBeLessThan(list.length);
	const sentAfterKill = sentPhones(kill.requests);
	expect(new Set(sentAfterKill).size).toBe(sentAfterKill.length);
	// The kill can cut off the answers to the leads in flight (with On Error: Continue the node
	// sends up to 8 at once): those are sent again, once. All the others are skipped.
	const sentAgain = sentAfterKill.filter((phone) => acceptedBeforeKill.has(phone));
	expect(sentAgain.length).toBeLessThanOrEqual(IN_FLIGHT);
	// The re-run answers for every input item, in order; the skipped ones say so.
	expect(rerun.map((item) => item.phone_e164)).toEqual(list.map((lead) => lead.phone));
	const skipped = rerun.filter((item) => item.skipped === true);
	// (More when n8n ran the killed execution again by itself before the re-run.)
	expect(skipped.length).toBeGreaterThanOrEqual(acceptedBeforeKill.size - sentAgain.length);

	emulator.requests.length = 0;
	const third = await runSync(n8n, hookPath, list);
	expect(sentPhones()).toEqual([]);
	expect(third.every((item) => item.skipped)).toBe(true);
}

describe('one n8n process', () => {
	let n8n: N8nServer | undefined;
	beforeAll(async () => {
		n8n = await startN8nServer(sandbox!);
	}, 180_000);
	afterAll(async () => {
		await n8n?.stop();
	});

	test('n8n killed in the middle of an import: the re-run after a restart sends what is missing', async () => {
		const hookPath = await deploySync(n8n!, 'single-kill');
		const list = leads(LEADS, 1000);
		const kill = await killMidImport(
			() => n8n!.callWebhookWhenRegistered(hookPath, withItems(list)),
			() => n8n!.kill(),
		);
		n8n = await startN8nServer(sandbox!);
		await expectResumed(n8n, hookPath, list, kill);
	});
});

describe('queue mode', () => {
	let queue: N8nQueue | undefined;
	beforeAll(async () => {
		queue = await startN8nQueue(sandbox!, { workers: 2, concurrency: 1 });
	}, 600_000);
	afterAll(async () => {
		await queue?.stop();
	});

	test('the worker running an import is killed: the re-run on the other worker sends only what is missing', async () => {
		const n8n = queue!;
		const hookPath = await deploySync(n8n.main, 'queue-kill');
		const list = leads(LEADS, 2000);
		let killed = '';
		const kill = await killMidImport(
			() => n8n.main.callWebhookWhenRegistered(hookPath, withItems(list)),
			async () => {
				const running = n8n.workers.find((worker) => worker.executionIds().length > 0);
				if (!running) throw new Error('no worker has started the import');
				killed = running.name;
				await running.service.stop('SIGKILL');
			},
		);
		await expectResumed(n8n.main, hookPath, list, kill);
		const survivor = n8n.workers.find((worker) => worker.name !== killed)!;
		expect(survivor.executionIds().length).toBeGreaterThan(0);
	});
});
