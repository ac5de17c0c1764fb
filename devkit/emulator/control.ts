/**
 * Control routes under /__emulator/ on the API origin (no auth): the in-process controls, for
 * an emulator in another process (`npm run emulator`, `connectEmulator`). They are not recorded,
 * counted, rate-limited or faulted.
 */
import type { EmulatorServer } from './server';
import { CallRecord, Fault } from './types';
import { detail, json, Reply } from './http';

export const CONTROL_PREFIX = '/__emulator/';

export type EmulatorState = ReturnType<typeof state>;

function state(target: EmulatorServer, query: Record<string, string>) {
	const since = (name: string): number => {
		const n = Number(query[name] ?? 0);
		return Number.isInteger(n) && n >= 0 ? n : 0;
	};
	return {
		baseUrl: target.baseUrl,
		fileBaseUrl: target.fileBaseUrl,
		stats: target.stats(),
		rateLimit: target.limiter.config,
		recordingProcessing: target.processing,
		recordingFiles: target.files,
		faults: target.faults.pending(),
		// Totals let a poller pass them back as ?since= / ?fileSince= next time.
		requestsTotal: target.requests.length,
		fileRequestsTotal: target.fileRequests.length,
		requests: target.requests.slice(since('since')),
		fileRequests: target.fileRequests.slice(since('fileSince')),
		leads: Array.from(target.leads.values()),
		// The call list can be 50 000 entries: only on request.
		...(query.calls === 'true' || query.calls === '1' ? { calls: target.calls } : {}),
	};
}

export function handleControl(
	target: EmulatorServer,
	route: string,
	query: Record<string, string>,
	body: string,
): Reply {
	try {
		const input = body.trim() === '' ? undefined : JSON.parse(body);
		switch (route) {
			case 'GET /state':
				return json(200, state(target, query));
			case 'GET /faults':
				return json(200, target.faults.pending());
			case 'POST /faults': {
				const faults = (Array.isArray(input) ? input : [input]) as Fault[];
				faults.forEach((fault) => target.inject(fault));
				return json(200, { queued: faults.length, faults: target.faults.pending() });
			}
			case 'DELETE /faults':
				target.clearFaults();
				return json(200, { faults: [] });
			case 'POST /rate-limit':
				target.setRateLimit(input);
				return json(200, { rateLimit: target.limiter.config });
			case 'POST /recording-processing':
				return json(200, { recordingProcessing: target.setRecordingProcessing(input ?? {}) });
			case 'POST /recording-files':
				return json(200, { recordingFiles: target.setRecordingFiles(input ?? {}) });
			case 'POST /calls': {
				const {
					count = 1,
					overrides = {},
					listedLate = false,
				} = (input ?? {}) as {
					count?: number;
					overrides?: Partial<CallRecord>;
					listedLate?: boolean;
				};
				if (!Number.isInteger(count) || count < 0)
					throw new Error('count must be a non-negative integer');
				return json(201, { calls: target.addCalls(count, overrides, { listedLate }) });
			}
			case 'POST /reset':
				target.reset();
				return json(200, { stats: target.stats() });
			default:
				return detail(404, `Unknown control route: ${route.replace(' /', ` ${CONTROL_PREFIX}`)}`);
		}
	} catch (error) {
		// Bad JSON or a config the emulator refuses: tell the test author what was wrong.
		return detail(400, (error as Error).message);
	}
}
