/**
 * The emulator's options with their defaults filled in, and the checks of the settings that can
 * also change while it runs (recording processing, recording files).
 */
import { DEMO_KEY_SCOPES } from './auth';
import { DEFAULT_RATE_LIMIT } from './rate-limit';
import {
	EmulatorOptions,
	RateLimitConfig,
	RECORDING_FILE_NAMES,
	RecordingFiles,
	RecordingProcessing,
} from './types';

export type ResolvedOptions = Required<
	Omit<
		EmulatorOptions,
		'rateLimit' | 'recordingProcessing' | 'recordingFileNames' | 'recordingContentType'
	>
> & {
	rateLimit: RateLimitConfig | false;
	recordingProcessing: RecordingProcessing;
	recordingFiles: RecordingFiles;
};

const READY_AT_ONCE: RecordingProcessing = { delayMs: 0, pendingAnswer: 'processing' };
const NAMED_BY_CALL: RecordingFiles = {
	recordingFileNames: 'by-call',
	recordingContentType: 'audio/mpeg',
};

export function resolveProcessing(
	current: RecordingProcessing,
	change: Partial<RecordingProcessing> = {},
): RecordingProcessing {
	const delayMs = change.delayMs ?? current.delayMs;
	const pendingAnswer = change.pendingAnswer ?? current.pendingAnswer;
	if (!Number.isFinite(delayMs) || delayMs < 0) throw new Error('delayMs must be 0 or more');
	if (!['404', '202', 'processing'].includes(pendingAnswer))
		throw new Error('pendingAnswer must be "404", "202" or "processing"');
	return { delayMs, pendingAnswer };
}

export function resolveFiles(
	current: RecordingFiles,
	change: Partial<RecordingFiles> = {},
): RecordingFiles {
	const recordingFileNames = change.recordingFileNames ?? current.recordingFileNames;
	const recordingContentType = change.recordingContentType ?? current.recordingContentType;
	if (!RECORDING_FILE_NAMES.includes(recordingFileNames))
		throw new Error(`recordingFileNames must be one of ${RECORDING_FILE_NAMES.join(', ')}`);
	if (typeof recordingContentType !== 'string' || !/^[\w.+-]+\/[\w.+-]+/.test(recordingContentType))
		throw new Error('recordingContentType must be a media type such as audio/mpeg');
	return { recordingFileNames, recordingContentType };
}

export function resolveOptions(options: EmulatorOptions): ResolvedOptions {
	return {
		keys: options.keys ?? DEMO_KEY_SCOPES,
		rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
		seedCalls: options.seedCalls ?? 120,
		paginationStyle: options.paginationStyle ?? 'data-next_cursor',
		listOrder: options.listOrder ?? 'newest-first',
		callTimeField: options.callTimeField === undefined ? 'created_at' : options.callTimeField,
		defaultPageSize: options.defaultPageSize ?? 50,
		maxPageSize: options.maxPageSize ?? 100,
		pageSizeOverflow: options.pageSizeOverflow ?? 'clamp',
		recordingBytes: options.recordingBytes ?? 32 * 1024,
		recordingProcessing: resolveProcessing(READY_AT_ONCE, options.recordingProcessing),
		recordingFiles: resolveFiles(NAMED_BY_CALL, {
			recordingFileNames: options.recordingFileNames,
			recordingContentType: options.recordingContentType,
		}),
		signedUrlTtlMs: options.signedUrlTtlMs ?? 15 * 60_000,
		strictPhone: options.strictPhone ?? true,
		recordRequests: options.recordRequests ?? true,
		host: options.host ?? '127.0.0.1',
		port: options.port ?? 0,
		fileHostPort: options.fileHostPort ?? 0,
	};
}
