import type { ResultRow } from './results';

/** Adds up the runs of one property into one RELIABILITY.md row. */
export class Tally {
	readonly row: ResultRow;

	constructor(scenario: string, operation: string) {
		this.row = {
			scenario,
			operation,
			itemsIn: 0,
			success: 0,
			error: 0,
			requestsSent: 0,
			retries: 0,
			lost: 0,
			leaked: 0,
			problems: [],
		};
	}

	add(counts: Partial<Omit<ResultRow, 'scenario' | 'operation' | 'problems'>>): void {
		for (const [name, value] of Object.entries(counts) as Array<[keyof typeof counts, number]>) {
			this.row[name] += value;
		}
	}

	/** Records a failure (the first few), then rethrows it so fast-check can shrink it. */
	fail(error: unknown): never {
		if ((this.row.problems ?? []).length < 5)
			this.row.problems?.push(String((error as Error).message).slice(0, 300));
		throw error;
	}
}
