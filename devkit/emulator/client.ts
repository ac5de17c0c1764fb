/**
 * Typed client for the /__emulator/ control routes, for suites that drive an emulator running in
 * another process (for example under a real n8n). Mirrors the in-process Emulator methods.
 */
import { serializeFault, SerializedFault } from './faults';
import {
	CallRecord,
	EmulatorStats,
	Fault,
	RateLimitConfig,
	RecordedRequest,
	RecordingFiles,
	RecordingProcessing,
	StoredLead,
} from './types';

export interface EmulatorState {
	baseUrl: string;
	fileBaseUrl: string;
	stats: EmulatorStats;
	rateLimit: RateLimitConfig | false;
	recordingProcessing: RecordingProcessing;
	recordingFiles: RecordingFiles;
	faults: Array<{ fault: SerializedFault; remaining: number | null }>;
	requestsTotal: number;
	fileRequestsTotal: number;
	requests: RecordedRequest[];
	fileRequests: RecordedRequest[];
	leads: StoredLead[];
	calls?: CallRecord[];
}

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
	const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
		const response = await fetch(`${root}${path}`, {
			method,
			headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(`emulator control ${method} ${path}: ${response.status} ${text}`);
		return JSON.parse(text) as T;
	};
	return {
		state: ({ since = 0, fileSince = 0, calls = false } = {}) =>
			call('GET', `/state?since=${since}&fileSince=${fileSince}${calls ? '&calls=true' : ''}`),
		inject: async (fault) => {
			const faults = Array.isArray(fault) ? fault : [fault];
			await call('POST', '/faults', faults.map(serializeFault));
		},
		clearFaults: async () => {
			await call('DELETE', '/faults');
		},
		setRateLimit: async (cfg) => {
			await call('POST', '/rate-limit', cfg);
		},
		setRecordingProcessing: async (change) => {
			await call('POST', '/recording-processing', change);
		},
		setRecordingFiles: async (change) => {
			await call('POST', '/recording-files', change);
		},
		addCalls: async (count, overrides = {}) =>
			(await call<{ calls: CallRecord[] }>('POST', '/calls', { count, overrides })).calls,
		reset: async () => {
			await call('POST', '/reset');
		},
	};
}
