/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/** Small numeric helpers: medians, because these machines are noisy. */

export function median(values: number[]): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function fixed(value: number, digits = 2): string {
	return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/** "1.23 (1.20-1.31)": the median with the range of the repeats, so noise is visible. */
export function medianRange(values: number[], digits = 2): string {
	if (values.length < 2) return fixed(median(values), digits);
	return `${fixed(median(values), digits)} (${fixed(Math.min(...values), digits)}-${fixed(Math.max(...values), digits)})`;
}

export const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** The distinct values, "a, b": a column that should hold one value shows when it does not. */
export const distinct = (values: unknown[]) => [...new Set(values)].join(', ');

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}
