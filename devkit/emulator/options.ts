/**
 * The emulator's options with their defaults filled in, and the checks of the settings that can
 * also change while it runs (recording processing, recording files).
 */
import { DEMO_KEY_SCOPES } from './auth';
import {
	EmulatorOptions,
	PENDING_RECORDING_ANSWERS,
	RecordingFiles,
	RecordingProcessing,
} from './types';

export type ResolvedOptions = Required<
	Omit<EmulatorOptions, 'recordingProcessing' | 'recordingFileNames' | 'recordingContentType'>
> & { recordingProcessing: RecordingProcessing; recordingFiles: RecordingFiles };

export function resolveProcessing(
	current: RecordingProcessing,
	change: Partial<RecordingProcessing> = {},
): RecordingProcessing {
	const { delayMs, pendingAnswer } = { ...current, ...withoutUndefined(change) };
	if (!Number.isFinite(delayMs) || delayMs < 0) throw new Error('delayMs must be 0 or more');
	if (!PENDING_RECORDING_ANSWERS.includes(pendingAnswer))
		throw new Error('pendingAnswer must be "404", "202" or "processing"');
	return { delayMs, pendingAnswer };
}

export function resolveFiles(
	current: RecordingFiles,
	change: Partial<RecordingFiles> = {},
): RecordingFiles {
	const files = { ...current, ...withoutUndefined(change) };
	const { recordingFileNames, recordingContentType } = files;
	if (!['by-call', 'same', 'content'].includes(recordingFileNames))
		throw new Error('recordingFileNames must be one of by-call, same, content');
	if (typeof recordingContentType !== 'string' || !/^[\w.+-]+\/[\w.+-]+/.test(recordingContentType))
		throw new Error('recordingContentType must be a media type such as audio/mpeg');
	const { recordingUrlField, recordingUrlForm, recordingReadyStatus } = files;
	if (![recordingUrlField, recordingReadyStatus].every((text) => typeof text === 'string' && text))
		throw new Error('recordingUrlField and recordingReadyStatus must be non-empty text');
	if (!['absolute', 'relative'].includes(recordingUrlForm))
		throw new Error('recordingUrlForm must be absolute or relative');
	return {
		recordingFileNames,
		recordingContentType,
		recordingUrlField,
		recordingUrlForm,
		recordingReadyStatus,
	};
}

const withoutUndefined = <T extends object>(value: T): Partial<T> =>
	Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;

export function resolveOptions(options: EmulatorOptions): ResolvedOptions {
	const { recordingProcessing, recordingFileNames, recordingContentType, ...rest } = options;
	return {
		keys: DEMO_KEY_SCOPES,
		rateLimit: { limit: 60, windowMs: 60_000 },
		seedCalls: 120,
		paginationStyle: 'data-next_cursor',
		listOrder: 'newest-first',
		callTimeField: 'created_at',
		defaultPageSize: 50,
		maxPageSize: 100,
		pageSizeOverflow: 'clamp',
		recordingBytes: 32 * 1024,
		strictPhone: true,
		recordRequests: true,
		host: '127.0.0.1',
		port: 0,
		fileHostPort: 0,
		...withoutUndefined(rest),
		recordingProcessing: resolveProcessing(
			{ delayMs: 0, pendingAnswer: 'processing' },
			recordingProcessing,
		),
		recordingFiles: resolveFiles(
			{
				recordingFileNames: 'by-call',
				recordingContentType: 'audio/mpeg',
				recordingUrlField: 'url',
				recordingUrlForm: 'absolute',
				recordingReadyStatus: 'completed',
			},
			{ recordingFileNames, recordingContentType },
		),
	};
}
