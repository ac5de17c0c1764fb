/**
 * Typed client for the /__emulator/ control routes, for suites that drive an emulator running in
 * another process (for example under a real n8n). Mirrors the in-process Emulator methods.
 */
import type { EmulatorState } from './control';
import { serializeFault } from './faults';
import { CallRecord, Fault, RateLimitConfig, RecordingFiles, RecordingProcessing } from './types';

export type { EmulatorState };

export interface EmulatorControl {
	state(options?: { since?: number; fileSince?: number; calls?: boolean }): Promise<EmulatorState>;
	inject(fault: Fault | Fault[]): Promise<void>;
	clearFaults(): Promise<void>;
	setRateLimit(cfg: RateLimitConfig | false): Promise<void>;
	setRecordingProcessing(change: Partial<RecordingProcessing>): Promise<void>;
	setRecordingFiles(change: Partial<RecordingFiles>): Promise<void>;
	addCalls(count: number, overrides?: Partial<CallRecord>): Promise<CallRecord[]>;
	reset(): Promise<void>;
}

export function connectEmulator(baseUrl: string): EmulatorControl {
	const root = `${baseUrl.replace(/\/+$/, '')}/__emulator`;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each caller names what it reads
	const call = async (method: string, path: string, body?: unknown): Promise<any> => {
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
			call('GET', `/state?since=${since}&fileSince=${fileSince}${calls ? '&calls=true' : ''}`),
		inject: (fault) => call('POST', '/faults', [fault].flat().map(serializeFault)),
		clearFaults: () => call('DELETE', '/faults'),
		setRateLimit: (cfg) => call('POST', '/rate-limit', cfg),
		setRecordingProcessing: (change) => call('POST', '/recording-processing', change),
		setRecordingFiles: (change) => call('POST', '/recording-files', change),
		addCalls: async (count, overrides = {}) =>
			(await call('POST', '/calls', { count, overrides })).calls,
		reset: () => call('POST', '/reset'),
	};
}
