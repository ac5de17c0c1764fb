import type { IDataObject } from 'n8n-workflow';

/**
 * How long until the next check, from the trigger's Poll Times (n8n's own `pollTimes` field),
 * when the schedule says so plainly: a single entry of a fixed mode (every hour, day, week,
 * month, or every X minutes or hours). Undefined when it cannot tell: several entries, a custom
 * cron expression, or no Poll Times at all (when the trigger is run outside a schedule).
 */

const MINUTE_MS = 60_000;

const FIXED_GAPS: Record<string, number> = {
	everyMinute: MINUTE_MS,
	everyHour: 60 * MINUTE_MS,
	everyDay: 24 * 60 * MINUTE_MS,
	everyWeek: 7 * 24 * 60 * MINUTE_MS,
	// The shortest month: the gap is at least this long.
	everyMonth: 28 * 24 * 60 * MINUTE_MS,
};

const UNITS: Record<string, number> = { minutes: MINUTE_MS, hours: 60 * MINUTE_MS };

export function pollGapMs(pollTimes: unknown): number | undefined {
	const items = (pollTimes as { item?: unknown } | undefined)?.item;
	if (!Array.isArray(items) || items.length !== 1) return undefined;
	const item = items[0] as IDataObject;
	const mode = String(item.mode ?? '');
	if (mode in FIXED_GAPS) return FIXED_GAPS[mode];
	if (mode !== 'everyX') return undefined;
	const value = Number(item.value);
	const unit = UNITS[String(item.unit ?? '')];
	return unit !== undefined && Number.isFinite(value) && value > 0 ? value * unit : undefined;
}
