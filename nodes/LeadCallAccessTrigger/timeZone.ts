import { inRange, parseTime } from './calls';

/**
 * Time-zone arithmetic: a "Calls Since" wall-clock time read in the workflow's time zone, and a
 * call's date there. Intl is the only zone database Node ships, so offsets are read from it.
 */

/** The zone's offset from UTC at instant `at`, in ms (Intl is the only zone database Node ships). */
function zoneOffsetMs(at: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(at));
	const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const wall = Date.UTC(
		part('year'),
		part('month') - 1,
		part('day'),
		part('hour'),
		part('minute'),
		part('second'),
	);
	return wall - Math.floor(at / 1000) * 1000;
}

const LOCAL_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;

/**
 * A "Calls Since" value. n8n's date picker gives a wall-clock time without a zone
 * ("2026-01-05T09:00:00"), meant in the workflow's timezone; values with a zone or a Unix
 * time are taken as they are.
 */
export function parseSince(value: unknown, timeZone: string): number | undefined {
	if (value instanceof Date) return inRange(value.getTime());
	const text = typeof value === 'string' ? value.trim() : String(value ?? '').trim();
	const match = LOCAL_TIME.exec(text);
	if (!match) return parseTime(text);
	const [, year, month, day, hour, minute, second, fraction] = match;
	const wall = Date.UTC(
		Number(year),
		Number(month) - 1,
		Number(day),
		Number(hour ?? 0),
		Number(minute ?? 0),
		Number(second ?? 0),
		Number((fraction ?? '0').padEnd(3, '0')),
	);
	try {
		// Two passes: the offset is looked up at the guessed instant, which settles DST edges.
		const guess = wall - zoneOffsetMs(wall, timeZone);
		return inRange(wall - zoneOffsetMs(guess, timeZone));
	} catch {
		return inRange(wall); // unknown zone name: UTC
	}
}

/** The call's date (yyyy-MM-dd) in the workflow's time zone, for naming files by day. */
export function callDate(at: number | undefined, timeZone: string): string | undefined {
	if (at === undefined) return undefined;
	const format = (zone: string) =>
		new Intl.DateTimeFormat('en-CA', {
			timeZone: zone,
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
		}).format(at);
	try {
		return format(timeZone);
	} catch {
		return format('UTC'); // a time zone this n8n's Node.js does not know
	}
}
