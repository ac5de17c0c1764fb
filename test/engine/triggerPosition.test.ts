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

const { emulatorWith, activated } = useTriggerEmulators({ seedCalls: 30 });

describe('trigger position', () => {
	// Restarts: the matrix of trigger.test.ts; how many ids are kept: test/unit/position.test.ts.
	test('the stored position is bounded plain JSON: ids, the newest creation time, the order and the top of the list as read', async () => {
		const { emulator, trigger } = await activated();
		const added = emulator.addCalls(2);
		expect(await trigger.poll()).toEqual(ids(added));
		const stored = trigger.storedState()['node:On New Call'] as { position: IDataObject };
		expect(stored.position).toEqual({
			version: 1,
			queryKey: '[]',
			seenIds: expect.arrayContaining(ids(added)),
			// The look-back window reaches back to where the trigger started (startedFrom), no further.
			seenTimes: Object.fromEntries(
				emulator.calls.slice(0, 3).map((call) => [call.id, Date.parse(call.created_at)]),
			),
			newestCreatedAt: added[0].created_at,
			startedFrom: emulator.calls[2].created_at,
			callsSince: null,
			listOrder: 'newest',
			headIds: emulator.calls.map((call) => call.id),
		});
	});

	test('Query Parameters are sent with every page and filter the emitted calls', async () => {
		const { emulator, trigger } = await activated(
			{ maxPageSize: 5 },
			{
				options: { queryParameters: { parameters: [{ name: 'direction', value: 'inbound' }] } },
			},
		);
		const added = emulator.addCalls(12);
		const inbound = added.filter((call) => call.direction === 'inbound');
		expect(inbound.length).toBeGreaterThan(0);
		expect(await trigger.poll()).toEqual(ids(inbound));
		expect(listRequests(emulator).every((request) => request.query.direction === 'inbound')).toBe(
			true,
		);
	});

	test('two polls at once do not emit the same calls twice', async () => {
		const { emulator, trigger } = await activated();
		const added = emulator.addCalls(3);
		const results = await Promise.all([trigger.poll(), trigger.poll()]);
		expect(results.flat()).toEqual(ids(added));
	});
});

describe('trigger errors', () => {
	test('a failure on a later page of a poll keeps the position', async () => {
		const { emulator, trigger } = await activated(
			{ maxPageSize: 3 },
			{ options: { maxRetries: 0 } },
		);
		const pending = emulator.addCalls(7);
		onApiRequest(emulator, (_request, index) => {
			// Page 1 is answered; page 2 meets a 503, and maxRetries 0 gives up at once.
			if (index === 0) emulator.inject({ kind: 'status', status: 503, path: '/v1/calls' });
		});
		await expect(trigger.poll()).rejects.toThrow(/503/);
		expect(await trigger.poll()).toEqual(ids(pending));
	});

	test('401 and 403 say what is wrong; once fixed, nothing was lost', async () => {
		const { emulator, trigger } = await activated();
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
