/**
 * The "On New Call" trigger's position (restarts, bounded state, Query Parameters, polls at
 * once), its errors and its options, driven the way n8n drives it (devkit/engine/trigger.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import { DEMO_KEYS } from '../../devkit/emulator';
import {
	TriggerUnderTest,
	idsOldestFirst as ids,
	listRequests,
	onApiRequest,
	useTriggerEmulators,
} from '../../devkit/engine/trigger';

const emulatorWith = useTriggerEmulators({ seedCalls: 30 });

describe('trigger position', () => {
	test('an n8n restart between polls resumes from the saved position', async () => {
		const emulator = await emulatorWith();
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		const first = emulator.addCalls(2);
		expect(await trigger.poll()).toEqual(ids(first));

		const whileDown = emulator.addCalls(3);
		trigger.restart();
		expect(await trigger.poll()).toEqual(ids(whileDown));
		trigger.restart();
		expect(await trigger.poll()).toEqual([]);

		// Bounded and plain JSON: ids, the newest creation time and the order, nothing else.
		const stored = trigger.storedState()['node:On New Call'] as { position: IDataObject };
		expect(stored.position).toEqual({
			version: 1,
			queryKey: '[]',
			seenIds: expect.arrayContaining(ids([...first, ...whileDown])),
			newestCreatedAt: whileDown[0].created_at,
			listOrder: 'newest',
		});
	});

	test('the state stays bounded however many calls go by', async () => {
		const emulator = await emulatorWith({ seedCalls: 5 });
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		for (let round = 0; round < 3; round++) {
			const added = emulator.addCalls(300);
			expect(await trigger.poll()).toEqual(ids(added));
		}
		const stored = trigger.storedState()['node:On New Call'] as { position: { seenIds: string[] } };
		expect(stored.position.seenIds).toHaveLength(500);
		expect(stored.position.seenIds[0]).toBe(emulator.calls[0].id);
	});

	test('Query Parameters are sent with every page and filter the emitted calls', async () => {
		const emulator = await emulatorWith({ maxPageSize: 5 });
		const trigger = new TriggerUnderTest(emulator, {
			options: { queryParameters: { parameters: [{ name: 'direction', value: 'inbound' }] } },
		});
		await trigger.poll();
		const added = emulator.addCalls(12);
		const inbound = added.filter((call) => call.direction === 'inbound');
		expect(inbound.length).toBeGreaterThan(0);
		expect(await trigger.poll()).toEqual(ids(inbound));
		expect(listRequests(emulator).every((request) => request.query.direction === 'inbound')).toBe(
			true,
		);
	});

	test('two polls at once do not emit the same calls twice', async () => {
		const emulator = await emulatorWith();
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		const added = emulator.addCalls(3);
		const results = await Promise.all([trigger.poll(), trigger.poll()]);
		expect(results.flat()).toEqual(ids(added));
	});
});

describe('trigger errors', () => {
	test('a 503 beyond the retries fails the poll and keeps the position', async () => {
		const emulator = await emulatorWith();
		const trigger = new TriggerUnderTest(emulator, { options: { maxRetries: 1 } });
		await trigger.poll();
		const first = emulator.addCalls(2);
		expect(await trigger.poll()).toEqual(ids(first));

		const pending = emulator.addCalls(3);
		emulator.inject({ kind: 'status', status: 503, count: 2, path: '/v1/calls' });
		await expect(trigger.poll()).rejects.toThrow(/temporarily unavailable \(503\).*2 attempts/);
		expect(await trigger.poll()).toEqual(ids(pending));
	});

	test('a failure on a later page of a poll keeps the position', async () => {
		const emulator = await emulatorWith({ maxPageSize: 3 });
		const trigger = new TriggerUnderTest(emulator, { options: { maxRetries: 0 } });
		await trigger.poll();
		const pending = emulator.addCalls(7);
		onApiRequest(emulator, (_request, index) => {
			// Page 1 is answered; page 2 meets a 503, and maxRetries 0 gives up at once.
			if (index === 0) emulator.inject({ kind: 'status', status: 503, path: '/v1/calls' });
		});
		await expect(trigger.poll()).rejects.toThrow(/503/);
		expect(await trigger.poll()).toEqual(ids(pending));
	});

	test('401 and 403 say what is wrong; once fixed, nothing was lost', async () => {
		const emulator = await emulatorWith();
		const trigger = new TriggerUnderTest(emulator);
		await trigger.poll();
		const pending = emulator.addCalls(2);

		trigger.credentials.apiKey = `pf_live_${'x'.repeat(43)}`;
		await expect(trigger.poll()).rejects.toThrow('API key missing or invalid (401)');
		trigger.credentials.apiKey = DEMO_KEYS.leadsOnly;
		await expect(trigger.poll()).rejects.toThrow(
			'The API key lacks the scope calls:read needed to list calls (403)',
		);
		trigger.credentials.apiKey = DEMO_KEYS.full;
		expect(await trigger.poll()).toEqual(ids(pending));
	});
});

describe('trigger options and test mode', () => {
	test('Fetch Test Event on an empty list returns nothing', async () => {
		const emulator = await emulatorWith({ seedCalls: 0 });
		expect(await new TriggerUnderTest(emulator).poll('manual')).toEqual([]);
	});

	test("Calls Since without a zone is read in the workflow's timezone", async () => {
		const emulator = await emulatorWith();
		const target = emulator.calls[4]; // 5 calls since
		// The same instant as wall-clock time in New York (UTC-5 in winter, when the seed calls are).
		const local = new Date(Date.parse(target.created_at) - 5 * 3600_000).toISOString().slice(0, 23);
		const trigger = new TriggerUnderTest(
			emulator,
			{ options: { callsSince: local } },
			{ timezone: 'America/New_York' },
		);
		expect(await trigger.poll()).toEqual(ids(emulator.calls.slice(0, 5)));
		expect(await trigger.poll()).toEqual([]);
	});
});
