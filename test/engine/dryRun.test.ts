/**
 * Import Lead › Options › Dry Run, run by n8n-core's engine against the emulator: a real run
 * without the sending. A lead that would be sent comes out as it would be sent; one that would
 * be refused fails its item exactly as in a real run (error output, or the node fails); nothing
 * reaches the service, and what Skip Unchanged Leads remembers is left as it was.
 */
import type { IDataObject, IWorkflowBase } from 'n8n-workflow';

import { run, useEmulator, workflowFrom } from '../../devkit/engine/fixtures';
import { deduplicationStore } from '../../devkit/engine/deduplicationStore';
import { leads } from '../../devkit/workflows';

/** A sheet as users have them: good numbers, national ones, spreadsheet artefacts, bad rows. */
const SHEET: IDataObject[] = [
	{ phone: '+1 415 555 2671', name: 'Ada Lovelace', campaign: 'spring' },
	{ phone: '(415) 555-2672', name: 'Grace Hopper', campaign: 'spring' },
	{ phone: '14155552673.0', name: 'Stored as a decimal', campaign: 'spring' },
	{ phone: '1.41555E10', name: 'Rounded by the sheet', campaign: 'spring' },
	{ phone: '1.4155552674E10', name: 'Scientific notation', campaign: 'spring' },
	{ phone: 'call me maybe', name: 'Linus Pauling', campaign: 'spring' },
	{ phone: '', name: 'Marie Curie', campaign: 'spring' },
];
/** The rows above a real run refuses before sending. */
const REFUSED = [3, 5, 6];

describe('Import Lead with Dry Run', () => {
	const { emulator, credentials, sentLeads } = useEmulator();

	function importWith(
		items: IDataObject[],
		options: IDataObject,
		id: string,
		onError?: 'stopWorkflow',
	): IWorkflowBase {
		const workflow = workflowFrom('importLeads', {
			items,
			parameters: { options: { defaultCountryCode: 'US', ...options } },
			onError,
		});
		return { ...workflow, id };
	}

	test('refused rows leave through the error output as in a real run; the others as they would be sent; nothing is sent', async () => {
		const dry = await run(importWith(SHEET, { dryRun: true }, 'dry-run-sheet'), credentials());
		expect(sentLeads()).toEqual([]);

		const sendable = SHEET.filter((_, row) => !REFUSED.includes(row));
		expect(dry.success).toEqual(
			sendable.map((row) => ({
				phone_e164: expect.stringMatching(/^\+1415555267\d$/),
				name: row.name,
				campaign_id: 'spring',
				dryRun: true,
				phoneAsWritten: row.phone,
			})),
		);
		const { success, error } = dry.output('Import Lead');
		expect(success.map((item) => item.pairedItem)).toEqual(
			SHEET.flatMap((_, item) => (REFUSED.includes(item) ? [] : [{ item }])),
		);
		expect(error.map((item) => item.pairedItem)).toEqual(REFUSED.map((item) => ({ item })));

		// The same sheet for real: the same items fail, with the same error items.
		const real = await run(importWith(SHEET, {}, 'real-run-sheet'), credentials());
		expect(sentLeads()).toHaveLength(sendable.length);
		expect(real.output('Import Lead').error.map((item) => item.pairedItem)).toEqual(
			error.map((item) => item.pairedItem),
		);
		expect(dry.errors).toEqual(real.errors);
		expect(dry.errors.map((item) => [item.name, item.error])).toEqual([
			['Rounded by the sheet', expect.stringMatching(/^Phone: "1.41555E10" is in scientific/)],
			['Linus Pauling', expect.stringMatching(/^Phone: "call me maybe" contains no digits/)],
			['Marie Curie', expect.stringMatching(/^Phone is empty/)],
		]);
		// What was sent for real is what the dry run showed.
		expect(dry.success).toEqual(
			sentLeads().map((lead) => ({ ...lead, dryRun: true, phoneAsWritten: expect.any(String) })),
		);
	});

	test('without an error output, the first refused row fails the node as in a real run', async () => {
		const dry = await run(
			importWith(SHEET, { dryRun: true }, 'dry', 'stopWorkflow'),
			credentials(),
		);
		expect(sentLeads()).toEqual([]);
		const real = await run(importWith(SHEET, {}, 'real', 'stopWorkflow'), credentials());
		expect(sentLeads()).toHaveLength(REFUSED[0]);

		const failure = (result: typeof dry) => ({
			name: result.error?.name,
			message: result.error?.message,
			item: (result.error as unknown as { context: { itemIndex: number } }).context.itemIndex,
		});
		expect(failure(dry)).toEqual(failure(real));
		expect(failure(dry)).toEqual({
			name: 'NodeOperationError',
			message: expect.stringMatching(/^Phone: "1.41555E10"/),
			item: REFUSED[0],
		});
	});

	test('leaves what Skip Unchanged Leads remembers untouched, with the option on or off', async () => {
		const workflowId = 'dry-run-sync';
		const list = leads(3);
		await run(importWith(list, { skipUnchanged: true }, workflowId), credentials());
		expect(sentLeads()).toHaveLength(3);
		expect(deduplicationStore.entryCount(workflowId)).toBe(3);

		emulator().requests.length = 0;
		const changed = [...list, ...leads(2, 50)];
		for (const skipUnchanged of [true, false]) {
			const dry = await run(
				importWith(changed, { skipUnchanged, dryRun: true }, workflowId),
				credentials(),
			);
			expect(dry.success.map((lead) => lead.phone_e164)).toEqual(changed.map((lead) => lead.phone));
			expect(emulator().requests).toEqual([]);
			expect(deduplicationStore.entryCount(workflowId)).toBe(3);
		}

		// The real run after the dry runs still skips what was imported before.
		const real = await run(importWith(changed, { skipUnchanged: true }, workflowId), credentials());
		expect(real.success.map((lead) => lead.skipped)).toEqual([true, true, true, false, false]);
		expect(sentLeads()).toHaveLength(2);
	});
});
