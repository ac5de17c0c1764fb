/**
 * Typed client for the /__emulator/ control routes, for suites that drive an emulator running in
 * another process (for example under a real n8n). Mirrors the in-process Emulator methods.
 */
import type { EmulatorState } from './control';
import { serializeFault } from './faults';
import { CallRecord, Fault, RateLimitConfig, RecordingFiles, RecordingProcessing } from './types';

export type { EmulatorState };
export type EmulatorControl = ReturnType<typeof connectEmulator>;

export function connectEmulator(baseUrl: string) {
	const root = `${baseUrl.replace(/\/+$/, '')}/__emulator`;
	const call = async <T = void>(method: string, path: string, body?: unknown): Promise<T> => {
		const response = await fetch(`${root}${path}`, {
			method,
			headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(`emulator control ${method} ${path}: ${response.status} ${text}`);
		return JSON.parse(text);
	};
	return {
		state: ({ since = 0, fileSince = 0, calls = false } = {}) =>
			call<EmulatorState>(
				'GET',
				`/state?since=${since}&fileSince=${fileSince}${calls ? '&calls=true' : ''}`,
			),
		inject: (fault: Fault | Fault[]) => call('POST', '/faults', [fault].flat().map(serializeFault)),
		clearFaults: () => call('DELETE', '/faults'),
		setRateLimit: (cfg: RateLimitConfig | false) => call('POST', '/rate-limit', cfg),
		setRecordingProcessing: (change: Partial<RecordingProcessing>) =>
			call('POST', '/recording-processing', change),
		setRecordingFiles: (change: Partial<RecordingFiles>) =>
			call('POST', '/recording-files', change),
		addCalls: async (
			count: number,
			overrides: Partial<CallRecord> = {},
			placement: { listedLate?: boolean } = {},
		) =>
			(await call<{ calls: CallRecord[] }>('POST', '/calls', { count, overrides, ...placement }))
				.calls,
		reset: () => call('POST', '/reset'),
	};
}
