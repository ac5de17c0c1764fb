/**
 * Import Lead › Options › Skip Unchanged Leads, run by n8n-core's engine against the emulator,
 * with n8n's deduplication store (in memory: deduplicationStore.ts). Each run of a test reuses
 * the same workflow (same id, same node id), as a scheduled sync does night after night.
 */
import type { IDataObject, IWorkflowBase } from 'n8n-workflow';

import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import { leads } from '../../devkit/workflows';
import { deduplicationStore } from '../../devkit/engine/deduplicationStore';
import type { WorkflowSetup } from '../../devkit/engine/fixtures';

describe('Import Lead with Skip Unchanged Leads', () => {
	const { emulator, credentials, sentLeads } = useEmulator();
	let workflowNumber = 0;
	let workflowId = '';
	beforeEach(() => {
		workflowId = `sync-${++workflowNumber}`;
	});

	/** The test's workflow with these items: same id and node each time, like a nightly sync. */
	function sync(items: IDataObject[], setup: Omit<WorkflowSetup, 'items'> = {}): IWorkflowBase {
		const workflow = workflowFrom('importLeads', {
			...setup,
			items,
			parameters: { options: { skipUnchanged: true }, ...setup.parameters },
		});
		return { ...workflow, id: workflowId };
	}

	const resync = async (items: IDataObject[], setup?: Omit<WorkflowSetup, 'items'>) =>
		await run(sync(items, setup), credentials());
	const sentPhones = () => sentLeads().map((lead) => lead.phone_e164);

	const pairs = (result: Awaited<ReturnType<typeof run>>) =>
		[...result.output('Import Lead').success, ...result.output('Import Lead').error]
			.map((item) => (item.pairedItem as { item: number }).item)
			.sort((a, b) => a - b);

	test('a re-sync sends only new and changed leads; skipped ones come out on the success output, marked and paired', async () => {
		const list = leads(6);
		const first = await resync(list);
		expect(first.errors).toEqual([]);
		expect(sentPhones()).toHaveLength(6);
		expect(first.success.map((lead) => lead.skipped)).toEqual(Array(6).fill(false));

		emulator().requests.length = 0;
		const changed = list.map((lead, index) =>
			index === 2 ? { ...lead, name: 'Renamed in the CRM' } : lead,
		);
		const second = await resync([...changed, ...leads(1, 100)]);

		expect(sentPhones()).toEqual([list[2].phone, leads(1, 100)[0].phone]);
		expect(emulator().leads.get(list[2].phone)?.name).toBe('Renamed in the CRM');
		expect(second.errors).toEqual([]);
		expect(pairs(second)).toEqual([0, 1, 2, 3, 4, 5, 6]);
		const skipped = second.success.filter((item) => item.skipped === true);
		expect(skipped).toHaveLength(5);
		// A skipped item shows the lead as it would have been sent, and why it was not.
		expect(skipped[0]).toEqual({
			phone_e164: list[0].phone,
			name: list[0].name,
			skipped: true,
			skipReason: expect.stringMatching(/^Unchanged/),
		});
		expect(second.success[2]).toMatchObject({ phone_e164: list[2].phone, skipped: false });

		// Nothing changed since: nothing is sent.
		emulator().requests.length = 0;
		const third = await resync([...changed, ...leads(1, 100)]);
		expect(sentPhones()).toEqual([]);
		expect(third.success.every((item) => item.skipped === true)).toBe(true);
	});

	test('rejected (422), failed (503) and invalid leads are not remembered: the next run sends them', async () => {
		const list = [...leads(2), { phone: '12345', name: 'server says no' }, ...leads(2, 10)];
		emulator().inject({ kind: 'status', status: 503, count: 10, path: '/v1/leads' });
		const setup = {
			parameters: { options: { skipUnchanged: true, validatePhone: false, maxRetries: 0 } },
		};
		const first = await resync(list, setup);
		// The first lead hit the 503s (no retries), so did the rest until they ran out.
		expect(first.errors.length).toBeGreaterThan(0);
		emulator().clearFaults();
		const failedFirst = first.errors.length;

		emulator().requests.length = 0;
		const second = await resync(list, setup);
		const imported = first.success.length;
		// Everything that did not get a 201 is sent again (the 422 one included), nothing else.
		expect(sentPhones()).toHaveLength(failedFirst);
		expect(second.success.filter((item) => item.skipped === true)).toHaveLength(imported);
		expect(second.errors).toEqual([expect.objectContaining({ phone: '12345' })]);

		emulator().requests.length = 0;
		await resync(list, setup);
		expect(sentPhones()).toEqual(['12345']);
	});

	test('an import stopped by a failure resumes where it stopped', async () => {
		const list = leads(8);
		// The fourth lead stops the run (On Error: Stop Workflow): the rest is never sent.
		const failing = list.map((lead, index) => (index === 3 ? { ...lead, phone: 'typo' } : lead));
		const first = await resync(failing, { onError: 'stopWorkflow' });
		expect(first.error).toBeDefined();
		expect(sentPhones()).toEqual(list.slice(0, 3).map((lead) => lead.phone));

		emulator().requests.length = 0;
		const second = await resync(list);
		expect(second.errors).toEqual([]);
		expect(sentPhones()).toEqual(list.slice(3).map((lead) => lead.phone));
		expect([...emulator().leads.keys()].sort()).toEqual(list.map((lead) => lead.phone).sort());
	});

	test('another Base URL or credential is another service: nothing is skipped there', async () => {
		const list = leads(3);
		await resync(list);
		emulator().requests.length = 0;
		// Same emulator, reached as localhost instead of 127.0.0.1: another Base URL.
		const otherUrl = credentials({ baseUrl: emulator().baseUrl.replace('127.0.0.1', 'localhost') });
		await run(sync(list), otherUrl);
		expect(sentPhones()).toHaveLength(3);

		emulator().requests.length = 0;
		const workflow = sync(list);
		const node = workflow.nodes.find((each) => each.name === 'Import Lead')!;
		node.credentials = { leadCallAccessApi: { id: '2', name: 'Another workspace' } };
		await run(workflow, credentials());
		expect(sentPhones()).toHaveLength(3);
	});

	test('turning the option off and running once forgets everything; a workflow without the option never touches the store', async () => {
		const list = leads(3);
		await resync(list);
		expect(deduplicationStore.entryCount(workflowId)).toBe(3);

		await resync(list, { parameters: { options: {} } });
		expect(deduplicationStore.entryCount(workflowId)).toBe(3);

		await resync(list, { parameters: { options: { skipUnchanged: false } } });
		expect(deduplicationStore.entryCount(workflowId)).toBe(0);

		emulator().requests.length = 0;
		await resync(list);
		expect(sentPhones()).toHaveLength(3);
	});

	test('items imported eight at a time (On Error: Continue) are all remembered: no write is lost', async () => {
		const list = leads(40);
		const first = await resync(list);
		expect(first.success).toHaveLength(40);
		// One entry per lead: the "not accepted yet" markers are all gone.
		expect(deduplicationStore.entryCount(workflowId)).toBe(40);
		emulator().requests.length = 0;
		const second = await resync(list);
		expect(sentPhones()).toEqual([]);
		expect(second.success.filter((item) => item.skipped === true)).toHaveLength(40);
	});
});
