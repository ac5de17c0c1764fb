/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The lead examples (CSV file, Google Sheet, form, HubSpot), imported as a user would into a real
 * n8n with the package installed from its tarball, run against the emulator: real data, Dry Run,
 * a service that refuses or is down.
 */
import * as fs from 'fs';

import { EXAMPLES } from '../../devkit/demo/examples';
import {
	deployGoogleSheetsExample,
	deployHubSpotSyncExample,
	hubSpotContact,
	publishLeadFormExample,
	runCsvExample,
	type CsvRun,
} from '../../devkit/demo/leadExamples';
import { nodeOutput } from '../../devkit/n8n';
import { useExamplesSession } from './examples-kit';

jest.setTimeout(120_000);

const { session, credential, apiRequests, publishes } = useExamplesSession();
const leadPosts = () => apiRequests('/v1/leads');

describe('import-leads-from-csv.json', () => {
	let result: CsvRun;
	beforeAll(async () => {
		session().emulator.reset();
		result = await runCsvExample(session(), credential());
	});

	test('imports the good and the fixable rows, normalised to E.164', () => {
		expect(result.run.run.status).toBe('success');
		expect(result.rows).toHaveLength(8);
		expect(result.imported.map(({ name, output }) => [name, output.phone_e164])).toEqual([
			['Ada Lovelace', '+14155552671'],
			['Grace Hopper', '+14155552672'],
			['Alan Turing', '+442079460958'],
			['Katherine Johnson', '+14155552673'],
			['Edsger Dijkstra', '+31205550199'],
		]);
		expect(result.imported.map((lead) => lead.row)).toEqual([0, 1, 2, 3, 4]);
		const stored = session().emulator.leads.get('+14155552672');
		expect(stored).toMatchObject({ name: 'Grace Hopper', campaign_id: 'spring-webinar' });
	});

	test('rejected rows leave through the error output, paired to their row, with the reason', () => {
		expect(
			result.rejected.map(({ row, name, phone, output }) => [row, name, phone, output.error]),
		).toEqual([
			[
				5,
				'Linus Pauling',
				'call me maybe',
				expect.stringMatching(/^Phone: "call me maybe" contains no digits/),
			],
			[
				6,
				'Marie Curie',
				'',
				'Phone is empty: this item has no phone number. Fill it in, or filter out items without one before this node; if every item fails so, map Phone to the field that holds the numbers',
			],
			[
				7,
				'Nikola Tesla',
				'555-01',
				expect.stringMatching(
					/^Phone: "555-01" is not a possible number of United States \(\+1\), the Default Country \(5 digits, its numbers have 10 digits\)/,
				),
			],
		]);
	});

	test('rejected-leads.csv collects the rejected rows with their reasons', () => {
		const lines = result.rejectedCsv.trim().split(/\r?\n/);
		expect(lines[0]).toBe('name,phone,campaign,reason');
		expect(lines.slice(1)).toEqual([
			expect.stringMatching(/^Linus Pauling,call me maybe,trade-show,"Phone: ""call me/),
			'Marie Curie,,trade-show,"Phone is empty: this item has no phone number. Fill it in, or filter out items without one before this node; if every item fails so, map Phone to the field that holds the numbers"',
			expect.stringMatching(/^Nikola Tesla,555-01,trade-show,"Phone: ""555-01"" is not/),
		]);
	});

	// The example's own wiring under Dry Run: refused rows still reach its file, nothing is sent.
	test('with Dry Run: nothing is sent, and rejected-leads.csv lists the same rows', async () => {
		const before = leadPosts().length;
		const dry = await runCsvExample(session(), credential(), { options: { dryRun: true } });
		expect(dry.run.run.status).toBe('success');
		expect(leadPosts()).toHaveLength(before);
		expect(dry.imported.map(({ output }) => [output.phone_e164, output.dryRun])).toEqual(
			result.imported.map(({ output }) => [output.phone_e164, true]),
		);
		expect(dry.rejectedCsv).toBe(result.rejectedCsv);
	});
});

describe('import-leads-from-google-sheets.json (Google Sheets stood in for)', () => {
	const ROWS = [
		{ row_number: 2, phone: '(415) 555-2671', name: 'Ada Lovelace', campaign: 'spring' },
		{ row_number: 3, phone: '14155552672.0', name: 'Grace Hopper', campaign: 'spring' },
		{ row_number: 4, phone: 'call me maybe', name: 'Linus Pauling', campaign: 'spring' },
		{ row_number: 5, phone: 14155552673, name: 'Katherine Johnson', campaign: 'spring' },
		{ row_number: 6, phone: '', name: 'Marie Curie', campaign: 'spring' },
		{ row_number: 7, phone: '555-01', name: 'Nikola Tesla', campaign: 'spring' },
	];
	const REFUSED = [4, 6, 7];
	let sheet: Awaited<ReturnType<typeof deployGoogleSheetsExample>>;
	let real: Awaited<ReturnType<typeof sheet.run>>;
	beforeAll(async () => {
		session().emulator.reset();
		sheet = await deployGoogleSheetsExample(session(), credential(), ROWS);
		real = await sheet.run();
	});

	test('writes each row its result: imported, or rejected with the reason', () => {
		expect(real.run.run.status).toBe('success');
		expect(real.written).toEqual(
			ROWS.map(({ row_number }) => ({
				row_number,
				result: REFUSED.includes(row_number)
					? expect.stringMatching(/^rejected: Phone( is empty|: ")/)
					: expect.stringMatching(/^imported \d{4}-\d\d-\d\d \d\d:\d\d$/),
			})),
		);
		expect(real.written[2].result).toMatch(/^rejected: Phone: "call me maybe" contains no digits/);
		expect(leadPosts()).toHaveLength(3);
		const stored = [...session().emulator.leads.keys()].sort();
		expect(stored.join(' ')).toBe('+14155552671 +14155552672 +14155552673');
	});

	test('run again on the unchanged sheet: nothing is sent; an emptied result re-sends a changed row', async () => {
		session().emulator.requests.length = 0;
		const again = await sheet.run();
		expect(again.run.run.status).toBe('success');
		expect(leadPosts()).toEqual([]);
		const rejected = real.written.filter((row) => REFUSED.includes(Number(row.row_number)));
		expect(again.written).toEqual(rejected);

		// As the note says: an emptied result sends its row again if it changed, not otherwise.
		const [ada, grace] = sheet.sheet;
		ada.result = '';
		Object.assign(grace, { result: '', name: 'Grace B. Hopper' });
		const resend = await sheet.run();
		const sent = leadPosts().map((request) => JSON.parse(request.body).name);
		expect(sent).toEqual(['Grace B. Hopper']);
		expect(resend.written.slice(0, 2)).toEqual([
			{ row_number: 2, result: 'imported earlier, unchanged: not sent again' },
			{ row_number: 3, result: expect.stringMatching(/^imported \d{4}/) },
		]);
	});

	test('with Dry Run: "would be imported", or rejected with the same reason; nothing is sent', async () => {
		session().emulator.reset();
		const dryRun = await deployGoogleSheetsExample(session(), credential(), ROWS, { dryRun: true });
		const dry = await dryRun.run();
		expect(dry.run.run.status).toBe('success');
		expect(dry.written).toEqual(
			real.written.map(({ row_number, result }) => ({
				row_number,
				result: REFUSED.includes(Number(row_number)) ? result : 'would be imported',
			})),
		);
		expect(session().emulator.requests).toEqual([]);
		expect(session().emulator.leads.size).toBe(0);
	});
});

describe('lead-form.json (n8n Form, published; answers kept in a data table)', () => {
	let form: Awaited<ReturnType<typeof publishLeadFormExample>>;
	beforeAll(async () => {
		session().emulator.reset();
		form = await publishLeadFormExample(session(), credential());
	});
	afterEach(() => session().emulator.reset());
	const ASK_TO_FIX = 'We could not use the phone number you wrote. Please go back';
	const KEPT_TO_CHECK = 'We kept your answer: if you do not send it again, our team will check';
	const keptRow = (name: string, phone: string, reason: RegExp) =>
		expect.objectContaining({ name, phone, reason: expect.stringMatching(reason) });

	test('a good number is imported and the person is thanked; nothing is kept', async () => {
		const { page, kept } = await form.submit('Ada Lovelace', '020 7946 0958');
		expect(page).toContain('Thank you, Ada Lovelace. We will call you soon.');
		expect(kept).toEqual([]);
		expect(session().emulator.leads.get('+442079460958')).toMatchObject({
			name: 'Ada Lovelace',
			campaign_id: 'web-form',
			legal_basis: 'consent',
		});
	});

	test('a German mobile without +49 (Default Country GB): kept with the reason, asked to fix it', async () => {
		const { page, kept } = await form.submit('Lise Meitner', '01512 3456789');
		expect(page).toContain(ASK_TO_FIX);
		expect(page).toContain(KEPT_TO_CHECK);
		expect(leadPosts()).toEqual([]);
		expect(kept).toEqual([
			keptRow('Lise Meitner', '01512 3456789', /^Phone: "01512 3456789" is not .*United Kingdom/),
		]);
	});

	test('a number the service refuses: kept with its reason, asked to fix it, not to try later', async () => {
		const detail = { loc: ['body', 'phone_e164'], msg: 'not callable', type: 'value_error' };
		const body = JSON.stringify({ detail: [detail] });
		session().emulator.inject({ kind: 'status', status: 422, body, path: '/v1/leads' });
		const { page, kept } = await form.submit('Alan Turing', '+44 20 7946 0959');
		expect(page).toContain(ASK_TO_FIX);
		expect(leadPosts().map((request) => request.status)).toEqual([422]);
		expect(kept).toEqual([keptRow('Alan Turing', '+44 20 7946 0959', /not callable/)]);
	});

	test('when the service is down: kept, the person told; Download CSV imports it later', async () => {
		session().emulator.inject({ kind: 'status', status: 503, count: 100, path: '/v1/leads' });
		const { page, kept } = await form.submit('Grace Hopper', '07400 123456');
		expect(page).toContain('our system could not take your request just now. We kept it');
		expect(page).toContain('you do not need to send it again');
		expect(page).not.toContain(ASK_TO_FIX);
		const reason = /^The API is temporarily unavailable \(503\)/;
		expect(kept).toEqual([keptRow('Grace Hopper', '07400 123456', reason)]);

		// As the note says: the table's Download CSV, read by the CSV example with the form's
		// Default Country. Its refused rows go to rejected-leads.csv, the others are imported.
		session().emulator.reset();
		const file = `${session().filesDir}/form-answers-to-import.csv`;
		fs.writeFileSync(file, await form.downloadCsv());
		const later = await runCsvExample(session(), credential(), {
			read: file,
			options: { defaultCountryCode: 'GB' },
		});
		expect(later.run.run.status).toBe('success');
		expect(later.imported.map(({ name, output }) => [name, output.phone_e164])).toEqual([
			['Alan Turing', '+442079460959'],
			['Grace Hopper', '+447400123456'],
		]);
		expect(later.rejected.map(({ name }) => name)).toEqual(['Lise Meitner']);
		fs.rmSync(file);
	});
});

describe('sync-hubspot-contacts.json (HubSpot stood in for; Skip Unchanged Leads)', () => {
	const withPhone = [
		hubSpotContact(1, 'Ada Lovelace', '+1 415 555 2671'),
		hubSpotContact(2, 'Grace Hopper', '(415) 555-2672'),
		hubSpotContact(3, 'Alan Turing', '+44 20 7946 0958'),
	];
	const withoutPhone = [hubSpotContact(5, 'Marie Curie'), hubSpotContact(6, 'Emmy Noether', ' ')];
	const refused = hubSpotContact(4, 'Linus Pauling', 'call me maybe');
	const noPhoneSummary = {
		summary: '2 contact(s) have no phone number: skipped, not sent',
		contactsWithoutPhone: 2,
		firstContacts: [5, 6],
	};

	test('contacts without a phone are skipped and counted; a refused one fails the run, by name', async () => {
		session().emulator.reset();
		const sync = await deployHubSpotSyncExample(session(), credential());
		const first = await sync.runNight([...withPhone, refused, ...withoutPhone]);
		expect(first.counts).toEqual({ sent: 3, skipped: 0 });
		expect(first.withoutPhone).toEqual(noPhoneSummary);
		expect(first.run.run.status).toBe('error');
		expect(first.failure).toMatch(
			/^1 contact\(s\) were not imported: HubSpot contact 4 \(call me maybe\): Phone: "call me maybe" contains no digits.*\. Rejected Contact lists each one with its reason\.$/,
		);
		expect(leadPosts()).toHaveLength(3);

		// The next night: one contact renamed, the refused one fixed in HubSpot; still two without.
		session().emulator.requests.length = 0;
		const renamed = hubSpotContact(2, 'Grace B. Hopper', '(415) 555-2672');
		const fixed = hubSpotContact(4, 'Linus Pauling', '+1 415 555 2674');
		const nextNight = [withPhone[0], renamed, withPhone[2], fixed, ...withoutPhone];
		const second = await sync.runNight(nextNight);
		expect(second.run.run.status).toBe('success');
		expect(second.counts).toEqual({ sent: 2, skipped: 2 });
		expect(second.withoutPhone).toEqual(noPhoneSummary);
		expect(leadPosts().map((request) => JSON.parse(request.body).name)).toEqual([
			'Grace B. Hopper',
			'Linus Pauling',
		]);
	});

	test('many refused contacts: the run fails with a short message, the count and the first three', async () => {
		session().emulator.reset();
		const sync = await deployHubSpotSyncExample(session(), credential());
		const bad = Array.from({ length: 40 }, (_, index) =>
			hubSpotContact(100 + index, 'No Digits', `number ${index}`),
		);
		const night = await sync.runNight([...withPhone, ...bad]);
		expect(night.run.run.status).toBe('error');
		expect(night.failure).toMatch(/^40 contact\(s\) were not imported: HubSpot contact 100 \(/);
		expect(night.failure).toMatch(/HubSpot contact 102 .* \| and 37 more\. Rejected Contact/);
		expect(night.failure).not.toMatch(/HubSpot contact 103/);
		expect(night.failure!.length).toBeLessThan(800);
		expect(nodeOutput(night.run.run, 'Rejected Contact')).toHaveLength(40);
	});

	test('as imported, it publishes with its Schedule Trigger', async () => {
		expect(await publishes(EXAMPLES.hubspotSync)).toBe(true);
	});
});
