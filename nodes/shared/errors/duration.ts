/**
 * A wait or a timeout as a person reads it: seconds up to two minutes, then minutes, from an
 * hour on hours ("45 seconds", "12 minutes", "1 hour", "3 hours 20 minutes"), never "3600 s".
 */
export function duration(ms: number): string {
	const seconds = Math.max(0, Math.round(ms / 1000));
	if (seconds < 120) return plural(seconds, 'second');
	const minutes = Math.round(seconds / 60);
	if (minutes < 60) return plural(minutes, 'minute');
	const hours = Math.floor(minutes / 60);
	const rest = minutes % 60;
	return rest === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} ${plural(rest, 'minute')}`;
}

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
