/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Request log and counters. Counters are always kept (benchmarks read them after 10 000
 * requests); the full log only when recordRequests is on, since it holds every header and body.
 */
import { IncomingMessage } from 'http';
import { EmulatorStats, RecordedRequest } from './types';

type Origin = 'api' | 'files';

export class Recorder {
	readonly requests: RecordedRequest[] = [];
	readonly fileRequests: RecordedRequest[] = [];
	private counts = { api: 0, files: 0 };
	private byStatus: Record<Origin, Record<string, number>> = { api: {}, files: {} };

	constructor(private readonly keepLog: boolean) {}

	/** Called on arrival, so the log is in arrival order even when answers finish out of order. */
	begin(origin: Origin, req: IncomingMessage, path: string, query: Record<string, string>) {
		const record: RecordedRequest = {
			origin,
			method: req.method ?? 'GET',
			path,
			query,
			// Copying headers is wasted work when the log is off (10 000-request benchmark runs).
			headers: this.keepLog ? { ...req.headers } : {},
			body: '',
			status: 'hang', // replaced by finish(); stays 'hang' for a request never answered
			at: Date.now(),
		};
		this.counts[origin]++;
		if (this.keepLog) (origin === 'api' ? this.requests : this.fileRequests).push(record);
		return record;
	}

	finish(record: RecordedRequest, status: RecordedRequest['status'], answerHeaders?: object): void {
		record.status = status;
		if (this.keepLog && answerHeaders)
			record.answerHeaders = answerHeaders as Record<string, string>;
		const counts = this.byStatus[record.origin];
		counts[status] = (counts[status] ?? 0) + 1;
	}

	stats(leads: number): EmulatorStats {
		const { api, files } = this.byStatus;
		return {
			requests: this.counts.api,
			byStatus: { ...api },
			leads,
			fileRequests: this.counts.files,
			fileByStatus: { ...files },
		};
	}

	clear(): void {
		// Emptied in place: callers may hold a reference to the arrays.
		this.requests.length = 0;
		this.fileRequests.length = 0;
		this.counts = { api: 0, files: 0 };
		this.byStatus = { api: {}, files: {} };
	}
}
