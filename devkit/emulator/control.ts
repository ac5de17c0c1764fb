/**
 * Control routes under /__emulator/ on the API origin (no auth): the same controls as the
 * in-process Emulator object, for suites that run the emulator in another process (the real n8n
 * end-to-end suite, `npm run emulator`). They are not recorded, counted, rate-limited or faulted.
 */
import {
	CallRecord,
	Emulator,
	Fault,
	RateLimitConfig,
	RecordingFiles,
	RecordingProcessing,
} from './types';
import { detail, json, Reply } from './http';
import { SerializedFault } from './faults';

export const CONTROL_PREFIX = '/__emulator/';

export interface ControlTarget extends Emulator {
	pendingFaults(): Array<{ fault: SerializedFault; remaining: number | null }>;
	rateLimit(): RateLimitConfig | false;
	recordingProcessing(): RecordingProcessing;
	recordingFiles(): RecordingFiles;
}

function sinceParam(value: string | undefined): number {
	const n = Number(value ?? 0);
	return Number.isInteger(n) && n >= 0 ? n : 0;
}

function parseJson(body: string): unknown {
	if (body.trim() === '') return undefined;
	return JSON.parse(body);
}

export function handleControl(
	target: ControlTarget,
	method: string,
	path: string,
	query: Record<string, string>,
	body: string,
): Reply {
	const route = `${method} ${path.slice(CONTROL_PREFIX.length - 1)}`;
	try {
		switch (route) {
			case 'GET /state': {
				const since = sinceParam(query.since);
				const fileSince = sinceParam(query.fileSince);
				return json(200, {
					baseUrl: target.baseUrl,
					fileBaseUrl: target.fileBaseUrl,
					stats: target.stats(),
					rateLimit: target.rateLimit(),
					recordingProcessing: target.recordingProcessing(),
					recordingFiles: target.recordingFiles(),
					faults: target.pendingFaults(),
					// Totals let a poller pass them back as ?since= / ?fileSince= next time.
					requestsTotal: target.requests.length,
					fileRequestsTotal: target.fileRequests.length,
					requests: target.requests.slice(since),
					fileRequests: target.fileRequests.slice(fileSince),
					leads: Array.from(target.leads.values()),
					// The call list can be 50 000 entries: only on request.
					...(query.calls === 'true' || query.calls === '1' ? { calls: target.calls } : {}),
				});
			}
			case 'GET /faults':
				return json(200, target.pendingFaults());
			case 'POST /faults': {
				const input = parseJson(body);
				const faults = (Array.isArray(input) ? input : [input]) as Fault[];
				faults.forEach((fault) => target.inject(fault));
				return json(200, { queued: faults.length, faults: target.pendingFaults() });
			}
			case 'DELETE /faults':
				target.clearFaults();
				return json(200, { faults: [] });
			case 'POST /rate-limit':
				target.setRateLimit(parseJson(body) as RateLimitConfig | false);
				return json(200, { rateLimit: target.rateLimit() });
			case 'POST /recording-processing': {
				const change = (parseJson(body) ?? {}) as Partial<RecordingProcessing>;
				return json(200, { recordingProcessing: target.setRecordingProcessing(change) });
			}
			case 'POST /recording-files': {
				const change = (parseJson(body) ?? {}) as Partial<RecordingFiles>;
				return json(200, { recordingFiles: target.setRecordingFiles(change) });
			}
			case 'POST /calls': {
				const input = (parseJson(body) ?? {}) as {
					count?: unknown;
					overrides?: Partial<CallRecord>;
				};
				const count = input.count ?? 1;
				if (!Number.isInteger(count) || (count as number) < 0)
					throw new Error('count must be a non-negative integer');
				return json(201, { calls: target.addCalls(count as number, input.overrides ?? {}) });
			}
			case 'POST /reset':
				target.reset();
				return json(200, { stats: target.stats() });
			default:
				return detail(404, `Unknown control route: ${method} ${path}`);
		}
	} catch (error) {
		// Bad JSON or a config the emulator refuses: tell the test author what was wrong.
		return detail(400, (error as Error).message);
	}
}
