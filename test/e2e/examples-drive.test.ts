/**
 * save-recordings-to-google-drive.json imported as a user would into a real n8n, its Google Drive
 * nodes as they are, answered by the Drive stand-in (devkit/drive, Drive's API shapes; how n8n
 * reaches it: devkit/demo/driveExample.ts). Drive keeps files of the same name side by side, so a
 * call uploaded twice shows as two files: every test counts the files in the folder.
 */
import { runDriveExample } from '../../devkit/demo/driveExample';
import type { Night, NightRun } from '../../devkit/demo/recordingExamples';
import { startLocalDrive, type DriveFile, type LocalDrive } from '../../devkit/drive';
import { recordingBytes } from '../../devkit/emulator';
import { useExamplesSession } from './examples-kit';

jest.setTimeout(240_000);

let drive: LocalDrive | undefined;
const localDrive = () => drive!;
beforeAll(async () => {
	drive = await startLocalDrive();
}, 60_000);
afterAll(async () => {
	await drive?.stop();
});
const kit = useExamplesSession(() => localDrive().n8nEnv);
const credential = () => kit.credential();
const FOLDER = 'YOUR-RECORDINGS-FOLDER-ID';
/** The emulator's recordings: 32 KiB each. */
const BYTES = 32 * 1024;

/** A night from 23:57 UTC, two days, on a host naming every file the same, served as bytes. */
function night(calls: Partial<Night>): Night {
	kit.session().emulator.reset();
	kit.session().emulator.setRecordingFiles({
		recordingFileNames: 'same',
		recordingContentType: 'application/octet-stream',
	});
	localDrive().clear();
	const from = '2025-01-01T23:57:00.000Z';
	return { recorded: 0, missed: 0, processingMs: 1_000, from, waitMs: 4_000, ...calls };
}

const dayOf = (id: string) => kit.callDay(id);
const withFile = ({ recorded, late }: NightRun['calls']) => [...recorded, ...late];
const withoutFile = ({ missed, stuck }: NightRun['calls']) => [...missed, ...stuck];

/** One file per call, named from the call, in the recordings folder. */
const expectedNames = (calls: NightRun['calls']) =>
	[
		...withFile(calls).map((id) => `${dayOf(id)} ${id}.mp3`),
		...withoutFile(calls).map((id) => `${dayOf(id)} ${id} missing recording.json`),
	].sort();
const names = (files: DriveFile[]) =>
	files.map((file) => (file.folder === FOLDER ? file.name : `${file.folder}/${file.name}`)).sort();

/** Each recording's file holds that call's recording. */
function expectRecordings(files: DriveFile[], calls: NightRun['calls']) {
	for (const id of withFile(calls)) {
		const file = files.find((each) => each.name === `${dayOf(id)} ${id}.mp3`)!;
		expect([id, file.bytes.equals(recordingBytes(id, BYTES))]).toEqual([id, true]);
	}
}

test('a night with late, missed and never-finished recordings: one file per call, named by the call', async () => {
	const run = await runDriveExample(
		kit.session(),
		credential(),
		localDrive(),
		night({
			recorded: 4,
			missed: 1,
			late: { count: 2, readyMs: 9_000 },
			stuck: 1,
			processingLimitMs: 14_000,
		}),
	);
	expect(run.executions.map(({ status }) => status)).toEqual(run.executions.map(() => 'success'));
	expect(names(run.files)).toEqual(expectedNames(run.calls));
	expectRecordings(run.files, run.calls);
	const note = run.files.find((each) => each.name.includes(run.calls.missed[0]))!;
	expect(JSON.parse(note.bytes.toString('utf8'))).toMatchObject({
		id: run.calls.missed[0],
		recordingStatus: 'none',
	});
});

test('Drive failing halfway through a run, its calls delivered again, then the whole night again: one file per call', async () => {
	const calls = night({ recorded: 6, missed: 1 });
	// The 4th upload fails on each of the node's 3 tries: the execution fails there.
	localDrive().failUploads(3, 3);
	const run = await runDriveExample(kit.session(), credential(), localDrive(), calls);
	const failed = run.executions.filter((execution) => execution.status === 'error');
	expect(failed).toHaveLength(1);
	// The failed run's calls came again with the next check: those already in Drive were skipped.
	expect(names(localDrive().files)).toEqual(expectedNames(run.calls));

	// As after n8n stopped mid-run: every call of the night comes again, into the same folder.
	const again = await runDriveExample(kit.session(), credential(), localDrive(), {
		...calls,
		again: run.calls,
	});
	expect(again.executions.map(({ status }) => status)).toEqual(
		again.executions.map(() => 'success'),
	);
	expect(names(again.files)).toEqual(expectedNames(run.calls));
	expectRecordings(again.files, run.calls);
});
