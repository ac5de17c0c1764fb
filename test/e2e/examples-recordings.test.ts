/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The examples that save recordings, imported as a user would into a real n8n with the package
 * installed from its tarball, a night at a time against the emulator, on recording hosts that
 * name every file the same way (in the address and in Content-Disposition), name them by call,
 * or give no name at all, and serve them as audio or as plain bytes. Each night has recordings
 * ready at once, a missed call, recordings still being processed when Wait for Recording ends
 * (they must come with a later check) and one the service never finishes (it must come, marked
 * "processing", once Give Up After has passed), spread over two days.
 * How each example is run: devkit/demo/recordingExamples.ts; the Google Drive example:
 * examples-drive.test.ts.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import { sleep } from 'n8n-workflow';

import {
	exportFolder,
	runExportExample,
	runS3Example,
	type Night,
	type NightRun,
} from '../../devkit/demo/recordingExamples';
import { recordingBytes, type RecordingFiles } from '../../devkit/emulator';
import { startLocalS3 } from '../../devkit/s3';
import { BINARY_DATA_MODE, useExamplesSession } from './examples-kit';

jest.setTimeout(180_000);

const kit = useExamplesSession();
const credential = () => kit.credential();
/** The emulator's recordings: 32 KiB each. */
const BYTES = 32 * 1024;

interface Host extends RecordingFiles {
	/** The extension the file is named with: from the content type, the host's name, or none. */
	ext: string;
	pendingAnswer: 'processing' | '202';
}
const host = (
	names: Host['recordingFileNames'],
	type: string,
	ext: string,
	pending = 'processing',
) =>
	({ recordingFileNames: names, recordingContentType: type, ext, pendingAnswer: pending }) as Host;
const SAME_NAME = host('same', 'audio/mpeg', 'mp3');
const BY_CALL_AS_BYTES = host('by-call', 'application/octet-stream', 'mp3', '202');
const NO_NAME_AS_BYTES = host('content', 'application/octet-stream', 'bin');

/**
 * A night of 8 calls a minute apart from 23:57 (UTC, the sandbox's time zone): two days, on this
 * host, the emulator as it was seeded.
 */
function onHost(host: Host): Night {
	kit.session().emulator.reset();
	kit.session().emulator.setRecordingFiles(host);
	return {
		recorded: 4,
		missed: 1,
		processingMs: 1_000,
		late: { count: 2, readyMs: 9_000 },
		stuck: 1,
		pendingAnswer: host.pendingAnswer,
		from: '2025-01-01T23:57:00.000Z',
		waitMs: 4_000,
		processingLimitMs: 14_000,
	};
}

const dayOf = (id: string) => kit.callDay(id);

/** The night's calls that have a file, and those without, with the status each comes with. */
const withFile = ({ recorded, late }: NightRun['calls']) => [...recorded, ...late];
const withoutFile = ({ missed, stuck }: NightRun['calls']) => [
	...missed.map((id) => [id, 'none']),
	...stuck.map((id) => [id, 'processing']),
];
const isRecording = (id: string, bytes: Buffer) => bytes.equals(recordingBytes(id, BYTES));

/** Every call of the night came exactly once, with its recording status. */
function expectEachCallOnce(run: NightRun): void {
	expect(run.executions.map(({ status }) => status)).toEqual(run.executions.map(() => 'success'));
	expect([...run.emitted].sort()).toEqual([...run.calls.all].sort());
	const statuses = run.items.map(({ json }) => [json.id, json.recordingStatus]);
	const downloaded = withFile(run.calls).map((id) => [id, 'downloaded']);
	expect(statuses.sort()).toEqual([...downloaded, ...withoutFile(run.calls)].sort());
}

/** The lines of the night's summary file (Morning Message's sentences). */
const summaryLines = (files: Map<string, Buffer>) =>
	[...files]
		.filter(([name]) => name.endsWith('_summary.txt'))
		.flatMap(([, bytes]) => bytes.toString('utf8').trim().split('\n'));
/** The number of recordings a sentence says are on disk. */
const savedIn = (line: string) => Number(/, (\d+) saved to disk today/.exec(line)?.[1]);

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each([
	['named the same for every call', SAME_NAME],
	['named by call, served as bytes', BY_CALL_AS_BYTES],
	['giving no name, served as bytes', NO_NAME_AS_BYTES],
])('export-recordings.json, the recording host %s', (_, host) => {
	let result: Awaited<ReturnType<typeof runExportExample>>;
	let ids: NightRun['calls'];
	beforeAll(async () => {
		result = await runExportExample(kit.session(), credential(), onHost(host));
		ids = result.calls;
	});
	afterAll(() => fs.rmSync(exportFolder(kit.session()), { recursive: true, force: true }));

	test('each call comes once: late recordings with their file in a later check, the others marked', () => {
		expectEachCallOnce(result);
		expect(new Set(ids.all.map(dayOf))).toEqual(new Set(['2025-01-01', '2025-01-02']));
	});

	test('every recording is on disk as <call day>_<call id>, with its own bytes; nothing else', () => {
		const recordings = withFile(ids).map((id) => `${dayOf(id)}_${id}.${host.ext}`);
		const audio = [...result.files.keys()].filter((name) => name.endsWith(`.${host.ext}`));
		expect(audio.sort()).toEqual(recordings.sort());
		for (const id of withFile(ids)) {
			const bytes = result.files.get(`${dayOf(id)}_${id}.${host.ext}`)!;
			expect([id, isRecording(id, bytes)]).toEqual([id, true]);
		}
		for (const file of result.saved) {
			expect(file.binaryId).toMatch(new RegExp(`^${BINARY_DATA_MODE}`));
			if (host.recordingContentType === 'audio/mpeg') expect(file.mimeType).toBe('audio/mpeg');
		}
	});

	test("next to each recording, the call's fields as JSON, with the file's size and SHA-256", () => {
		for (const id of withFile(ids)) {
			const sidecar = JSON.parse(result.files.get(`${dayOf(id)}_${id}.json`)!.toString('utf8'));
			expect(sidecar).toMatchObject({
				id,
				callDate: dayOf(id),
				recordingStatus: 'downloaded',
				fileName: `${id}.${host.ext}`,
				fileSize: BYTES,
				sha256: sha256(recordingBytes(id, BYTES)),
			});
			if (host.recordingFileNames === 'same') expect(sidecar.hostFileName).toBe('recording.mp3');
		}
	});

	test('the missed call and the recording never finished are listed in their day’s missing-recordings file', () => {
		const lines = [...result.files]
			.filter(([name]) => name.endsWith('_missing-recordings.csv'))
			.flatMap(([name, bytes]) =>
				bytes
					.toString('utf8')
					.trim()
					.split('\n')
					.map((line) => `${name}: ${line.split(',').slice(0, 3).join(',')}`),
			);
		const expected = withoutFile(ids).map(
			([id, status]) => `${dayOf(id)}_missing-recordings.csv: ${id},${dayOf(id)},${status}`,
		);
		expect(lines.sort()).toEqual(expected.sort());
	});

	test('each check ends with a summary; together they count the night, and the summary file has a line each', () => {
		const total = (field: string) =>
			result.summaries.reduce((sum, summary) => sum + Number(summary[field]), 0);
		expect({
			callsDelivered: total('callsDelivered'),
			withRecording: total('withRecording'),
			missed: total('missed'),
			stillProcessing: total('stillProcessing'),
		}).toEqual({ callsDelivered: 8, withRecording: 6, missed: 1, stillProcessing: 1 });
		// Checks every 2 minutes: the first does not wait for recordings. It left the missed call
		// (until Wait for Recording ends), the late and the never-finished recordings for later ones.
		expect(result.summaries[0]).toMatchObject({ withRecording: 4, missed: 0, heldForLater: 4 });
		expect(result.summaries.at(-1)).toMatchObject({ stillProcessing: 1, heldForLater: 0 });
		// The sentence counts the recordings on disk by the saved list, cumulated over the day.
		const lines = summaryLines(result.files);
		expect(lines.map((line) => line.split(': ')[0])).toEqual(
			result.summaries.map((summary) => `Recordings checked at ${String(summary.checkedAt)}`),
		);
		const recordings = [...result.files.keys()].filter((name) => name.endsWith(`.${host.ext}`));
		expect(lines.map(savedIn).at(-1)).toBe(recordings.length);
		expect(lines.filter((line) => line.includes('could not be written'))).toEqual([]);
	});
});

test('export-recordings.json, the disk refusing one recording: the morning message counts the recordings really on disk', async () => {
	const night = onHost(SAME_NAME);
	const folder = exportFolder(kit.session());
	// A folder where the third recording's file goes: writing it fails, and its run with it.
	const refuse = (calls: NightRun['calls']) =>
		fs.mkdirSync(`${folder}/${dayOf(calls.recorded[2])}_${calls.recorded[2]}.mp3`);
	try {
		const run = await runExportExample(kit.session(), credential(), {
			...night,
			recorded: 6,
			late: undefined,
			stuck: 0,
			onCalls: refuse,
		});
		// The refused file's run fails, and again each time its calls come again (the trigger's
		// Deliver Failed Calls Again): the folder in its way stays.
		expect(run.executions.filter(({ status }) => status === 'error').length).toBeGreaterThan(0);
		const onDisk = [...run.files.keys()].filter((name) => name.endsWith('.mp3'));
		const [message] = summaryLines(run.files);
		const downloaded = run.summaries[0].withRecording as number;
		expect({
			saved: savedIn(message),
			notWritten: message.includes(`; ${downloaded - onDisk.length} could not be written`),
		}).toEqual({
			saved: onDisk.length,
			notWritten: true,
		});
		expect(onDisk.length).toBeLessThan(downloaded);
	} finally {
		fs.rmSync(folder, { recursive: true, force: true });
	}
});

describe.each([
	['named the same for every call', SAME_NAME],
	['named by call, served as bytes', BY_CALL_AS_BYTES],
])(
	"save-recordings-to-s3.json (a local S3 server, through n8n's S3 node), the host %s",
	(_, host) => {
		test('every recording under recordings/<call day>/, each missing one under recordings/missing/', async () => {
			const s3 = await startLocalS3('e2e-call-recordings');
			try {
				const run = await runS3Example(kit.session(), credential(), s3, onHost(host));
				expectEachCallOnce(run);
				const files = withFile(run.calls).map((id) => [id, `${dayOf(id)}/${id}.${host.ext}`]);
				const notes = withoutFile(run.calls).map(([id, status]) => [`${dayOf(id)}/${id}`, status]);
				expect([...run.uploaded.keys()].sort()).toEqual(
					[
						...files.map(([, key]) => `recordings/${key}`),
						...notes.map(([key]) => `recordings/missing/${key}.json`),
					].sort(),
				);
				for (const [id, key] of files) {
					const bytes = run.uploaded.get(`recordings/${key}`)!;
					expect([key, isRecording(id, bytes)]).toEqual([key, true]);
				}
				for (const [key, recordingStatus] of notes) {
					const note = run.uploaded.get(`recordings/missing/${key}.json`)!.toString('utf8');
					expect(JSON.parse(note)).toMatchObject({ recordingStatus });
				}
			} finally {
				await s3.stop();
			}
		});
	},
);

test('save-recordings-to-s3.json, S3 down during the night and back before the next check: every call in the bucket, no run retried by hand', async () => {
	const s3 = await startLocalS3('e2e-s3-down');
	try {
		const night = { ...onHost(SAME_NAME), late: undefined, stuck: 0 };
		const run = await runS3Example(kit.session(), credential(), s3, {
			...night,
			onCalls: () => void s3.pause(),
		});
		expect(run.executions.filter(({ status }) => status === 'error').length).toBeGreaterThan(0);
		expect(run.uploaded.size).toBe(0);

		// S3 is back; the next check (publishing runs one) delivers the failed runs' calls again.
		await s3.resume();
		const { server } = kit.session();
		await server.republish(run.executions[0].workflowId);
		const expected = [
			...withFile(run.calls).map((id) => `recordings/${dayOf(id)}/${id}.${SAME_NAME.ext}`),
			...withoutFile(run.calls).map(([id]) => `recordings/missing/${dayOf(id)}/${id}.json`),
		].sort();
		for (const deadline = Date.now() + 60_000; s3.objects().size < expected.length;) {
			if (Date.now() > deadline) break;
			await sleep(500);
		}
		expect([...s3.objects().keys()].sort()).toEqual(expected);
		await server.rest('POST', `/workflows/${run.executions[0].workflowId}/deactivate`, {});
	} finally {
		await s3.stop();
	}
});
