/** Times as milliseconds since the epoch, the one form the trigger compares and stores. */

/** Beyond this `new Date(ms).toISOString()` throws: such a value is not a real time. */
const MAX_TIME_MS = 8.64e15;

/** Unix times below this are seconds (1e11 s is the year 5138; 1e11 ms is 1973). */
const SECONDS_LIMIT = 1e11;

function inRange(ms: number): number | undefined {
	return Number.isFinite(ms) && Math.abs(ms) <= MAX_TIME_MS ? ms : undefined;
}

/** An ISO 8601 string, or a Unix time in seconds or milliseconds (number or digits). */
export function parseTime(value: unknown): number | undefined {
	if (typeof value === 'number') {
		return inRange(Math.abs(value) < SECONDS_LIMIT ? value * 1000 : value);
	}
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const text = value.trim();
	if (/^\d+(\.\d+)?$/.test(text)) return parseTime(Number(text));
	return inRange(Date.parse(text));
}

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
