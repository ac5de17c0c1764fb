import { parseTime, trackCall } from '../../nodes/LeadCallAccessTrigger/calls';
import { parseSince } from '../../nodes/LeadCallAccessTrigger/timeZone';

const utc = (iso: string) => Date.parse(`${iso}Z`);

describe('parseTime: the times calls carry', () => {
	test.each([
		['an ISO string with a zone', '2026-01-05T09:00:00+01:00', utc('2026-01-05T08:00:00')],
		['Unix seconds', 1_767_603_600, utc('2026-01-05T09:00:00')],
		['Unix milliseconds', 1_767_603_600_000, utc('2026-01-05T09:00:00')],
		['Unix seconds as digits', ' 1767603600 ', utc('2026-01-05T09:00:00')],
		['fractional Unix seconds', 1_767_603_600.5, utc('2026-01-05T09:00:00.500')],
	])('%s', (_, value, expected) => {
		expect(parseTime(value)).toBe(expected);
	});

	test.each([[''], ['  '], ['yesterday'], [null], [undefined], [true], [{}], [1e20], [NaN]])(
		'%j is no time',
		(value) => {
			expect(parseTime(value)).toBeUndefined();
		},
	);
});

describe('trackCall: the time fields a call is read by', () => {
	test.each([
		['date_created', 'Mon, 05 Jan 2026 09:00:00 +0000'], // Twilio: RFC 2822
		['dateCreated', '2026-01-05T09:00:00Z'],
		['created_time', '2026-01-05T09:00:00+0000'], // Meta's Graph API
		['createdTime', 1_767_603_600],
	])('%s', (field, value) => {
		expect(trackCall({ id: 'c1', [field]: value }).at).toBe(utc('2026-01-05T09:00:00'));
	});
});

describe("parseSince: Calls Since, read in the workflow's timezone", () => {
	test.each([
		['winter', '2026-01-05T09:00:00', 'America/New_York', '2026-01-05T14:00:00'],
		['summer', '2026-07-05T09:00:00', 'America/New_York', '2026-07-05T13:00:00'],
		['east of UTC', '2026-07-05T09:00:00', 'Europe/Berlin', '2026-07-05T07:00:00'],
		['a date alone: its midnight', '2026-01-05', 'Europe/Berlin', '2026-01-04T23:00:00'],
		['minutes only, space separated', '2026-01-05 09:30', 'UTC', '2026-01-05T09:30:00'],
		['tenths of a second', '2026-01-05T09:00:00.5', 'UTC', '2026-01-05T09:00:00.500'],
		[
			'milliseconds kept, finer digits cut',
			'2026-01-05T09:00:00.1239',
			'UTC',
			'2026-01-05T09:00:00.123',
		],
		['an unknown zone name: UTC', '2026-01-05T09:00:00', 'Mars/Olympus', '2026-01-05T09:00:00'],
	])('a wall-clock time, %s', (_, value, timeZone, expected) => {
		expect(parseSince(value, timeZone)).toBe(utc(expected));
	});

	describe('around a daylight-saving change (New York, 2026)', () => {
		const zone = 'America/New_York';

		test('just after clocks go forward, the new offset applies', () => {
			// 03:30 EDT; an offset looked up at the wall time itself would give 03:30 EST.
			expect(parseSince('2026-03-08T03:30:00', zone)).toBe(utc('2026-03-08T07:30:00'));
		});

		test('just before clocks go forward, the old offset applies', () => {
			expect(parseSince('2026-03-08T01:30:00', zone)).toBe(utc('2026-03-08T06:30:00'));
		});

		test('a time the change skips is read an hour early, so no call is left out', () => {
			// 02:30 never happens that night: 01:30 EST (06:30Z), not 03:30 EDT (07:30Z).
			expect(parseSince('2026-03-08T02:30:00', zone)).toBe(utc('2026-03-08T06:30:00'));
		});

		test('a time that happens twice when clocks go back is read as the first', () => {
			// 01:30 EDT (05:30Z), then 01:30 EST (06:30Z).
			expect(parseSince('2026-11-01T01:30:00', zone)).toBe(utc('2026-11-01T05:30:00'));
		});

		test('just after clocks go back, the new offset applies', () => {
			expect(parseSince('2026-11-01T02:30:00', zone)).toBe(utc('2026-11-01T07:30:00'));
		});
	});

	test('values with a zone, Unix times and dates are taken as they are', () => {
		const zone = 'America/New_York';
		expect(parseSince('2026-01-05T09:00:00Z', zone)).toBe(utc('2026-01-05T09:00:00'));
		expect(parseSince('2026-01-05T09:00:00+01:00', zone)).toBe(utc('2026-01-05T08:00:00'));
		expect(parseSince(1_767_603_600, zone)).toBe(utc('2026-01-05T09:00:00'));
		expect(parseSince(new Date(utc('2026-01-05T09:00:00')), zone)).toBe(utc('2026-01-05T09:00:00'));
	});

	test.each([[''], [undefined], [null], ['soon'], [new Date(NaN)]])('%j is no time', (value) => {
		expect(parseSince(value, 'UTC')).toBeUndefined();
	});
});
