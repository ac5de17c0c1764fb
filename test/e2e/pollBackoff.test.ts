/**
 * n8n 2.x's poll scheduler backs a failing trigger off by the cause its error declares
 * (n8n-workflow's `errors/failure`; n8n's poll-backoff-policy): a revoked key
 * (`credential-invalid`) is left alone for 30 minutes instead of being polled on schedule.
 *
 * The backoff lives in n8n's durable scheduler, off by default in 2.40: the three variables
 * below turn it on, as an instance that uses it does. The trigger polls every 10 seconds
 * (six Poll Times a minute, 10 s apart: n8n refuses a single one more often than a minute), so
 * "polled on schedule" and "backed off" differ within a minute: the check watches 45 s after the
 * key is revoked, not the 30 minutes themselves, and reads the backoff n8n decided from its log.
 */
import { sleep } from 'n8n-workflow';

import { DEMO_KEYS } from '../../devkit/emulator';
import { N8N_MAJOR } from '../../devkit/n8n';
import { TriggerStage, pollTimesAtSeconds, triggerWorkflow } from './trigger-helpers';

jest.setTimeout(240_000);

const DURABLE_SCHEDULER = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	// Log lines as JSON, with their metadata: the cause and delay n8n backed off by.
	N8N_LOG_FORMAT: 'json',
};
/** n8n refuses a poll time more often than a minute; six of them, 10 s apart, poll every 10 s. */
const EVERY_10_SECONDS = pollTimesAtSeconds(0, 10, 20, 30, 40, 50);

(N8N_MAJOR >= 2 ? describe : describe.skip)("n8n 2.x's poll backoff", () => {
	let stage: TriggerStage;
	beforeAll(async () => {
		stage = await TriggerStage.open({ rateLimit: false, seedCalls: 5 }, { env: DURABLE_SCHEDULER });
	});
	afterAll(async () => {
		await stage?.close();
	});

	const listRequests = () =>
		stage.emulator.requests.filter((request) => request.path === '/v1/calls');

	test('a trigger whose key is revoked is backed off instead of polled every 10 seconds', async () => {
		const credentialId = await stage.createCredential('Backoff', DEMO_KEYS.full);
		const workflow = await stage.deploy(
			triggerWorkflow({ credentialId, parameters: { pollTimes: EVERY_10_SECONDS } }),
		);
		// n8n's own schedule polls: at least two polls within 40 s.
		const activatedAt = listRequests().length;
		const deadline = Date.now() + 40_000;
		while (listRequests().length < activatedAt + 2 && Date.now() < deadline) await sleep(500);
		if (listRequests().length < activatedAt + 2) {
			const log = stage.serverLog().split('\n');
			const from = log.findIndex((line) => /Editor is now accessible/.test(line));
			throw new Error(`no scheduled polls; n8n said:\n${log.slice(from).join('\n').slice(-6000)}`);
		}

		await stage.setApiKey(credentialId, 'Backoff', `pf_live_${'x'.repeat(43)}`);
		const revokedAt = Date.now();
		const before = listRequests().length;
		await sleep(45_000);
		const after = listRequests().slice(before);
		// The first poll after the revocation meets the 401; none follows within 45 s (4 slots).
		expect(after.map((request) => request.status)).toEqual([401]);
		const backoffs = stage
			.serverLog()
			.split('\n')
			.filter((line) => line.includes('Poll failed; backing off'))
			.map(
				(line) =>
					JSON.parse(line) as { metadata?: Record<string, unknown> } & Record<string, unknown>,
			)
			.map((entry) => entry.metadata ?? entry);
		// Permanent: n8n's longest backoff, 30 minutes.
		expect(backoffs).toEqual([
			expect.objectContaining({
				cause: 'credential-invalid',
				type: 'permanent',
				delayMs: 1_800_000,
			}),
		]);
		expect(Date.now() - revokedAt).toBeGreaterThanOrEqual(45_000);
		await workflow.deactivate();
	});
});
