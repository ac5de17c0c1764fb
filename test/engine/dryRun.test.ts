/**
 * Import Lead › Options › Dry Run, run by n8n-core's engine against the emulator: each lead as
 * it would be sent (the phone as read, the fields) or refused (with the reason), no request,
 * and what Skip Unchanged Leads remembers left as it was.
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
	{ phone: '1.4155552674E10', name: 'Scientific notation', campaign: 'spring' },
	{ phone: '1.41555E10', name: 'Rounded by the sheet', campaign: 'spring' },
	{ phone: 'call me maybe', name: 'Linus Pauling', campaign: 'spring' },
	{ phone: '', name: 'Marie Curie', campaign: 'spring' },
];

describe('Import Lead with Dry Run', () => {
	const { emulator, credentials } = useEmulator();
	const leadRequests = () => emulator().requests.filter((request) => request.path === '/v1/leads');

	function importWith(items: IDataObject[], options: IDataObject, id: string): IWorkflowBase {
		const workflow = workflowFrom('importLeads', {
			items,
			parameters: { options: { defaultCountryCode: 'US', ...options } },
		});
		return { ...workflow, id };
	}

	test('shows every row as it would be sent or refused, in order, and sends nothing', async () => {
		const result = await run(importWith(SHEET, { dryRun: true }, 'dry-run-sheet'), credentials());

		expect(leadRequests()).toEqual([]);
		expect(result.errors).toEqual([]);
		expect(result.success).toEqual([
			{
				phone_e164: '+14155552671',
				name: 'Ada Lovelace',
				campaign_id: 'spring',
				dryRun: true,
				phoneAsWritten: '+1 415 555 2671',
			},
			expect.objectContaining({ phone_e164: '+14155552672', phoneAsWritten: '(415) 555-2672' }),
			expect.objectContaining({ phone_e164: '+14155552673', name: 'Stored as a decimal' }),
			expect.objectContaining({ phone_e164: '+14155552674', name: 'Scientific notation' }),
			{
				dryRun: true,
				phoneAsWritten: '1.41555E10',
				refused: expect.stringMatching(/^Phone: "1.41555E10" is in scientific notation/),
			},
			{
				dryRun: true,
				phoneAsWritten: 'call me maybe',
				refused: expect.stringMatching(/^Phone: "call me maybe" contains no digits/),
			},
			{
				dryRun: true,
				phoneAsWritten: '',
				refused: expect.stringMatching(/^Phone is empty/),
			},
		]);
		const paired = result.output('Import Lead').success.map((item) => item.pairedItem);
		expect(paired).toEqual(SHEET.map((_, item) => ({ item })));
	});

	test('leaves what Skip Unchanged Leads remembers untouched, with the option on or off', async () => {
		const workflowId = 'dry-run-sync';
		const list = leads(3);
		await run(importWith(list, { skipUnchanged: true }, workflowId), credentials());
		expect(leadRequests()).toHaveLength(3);
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
		expect(leadRequests()).toHaveLength(2);
	});
});
