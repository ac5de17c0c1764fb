/**
 * The file host's naming switches (`recordingFileNames`, `recordingContentType`): what a recording
 * host that names every file the same way, or types it as plain bytes, looks like to the node.
 * The default (named by call, audio/mpeg) is pinned in recordings.test.ts.
 */
import {
	CallRecord,
	connectEmulator,
	DEMO_KEYS,
	Emulator,
	EmulatorOptions,
	recordingBytes,
	startEmulator,
} from '../../devkit/emulator';

const BYTES = 70_000;
const started: Emulator[] = [];

async function start(options: EmulatorOptions = {}): Promise<Emulator> {
	const instance = await startEmulator({ rateLimit: false, recordingBytes: BYTES, ...options });
	started.push(instance);
	return instance;
}

afterAll(async () => {
	await Promise.all(started.map((instance) => instance.stop()));
});

interface Download {
	url: string;
	contentType: string | null;
	disposition: string | null;
	/** The API's answer's `content_type`. */
	announced: string;
	bytes: Buffer;
}

async function download(emu: Emulator, call: CallRecord): Promise<Download> {
	const answer = await fetch(`${emu.baseUrl}/v1/calls/${encodeURIComponent(call.id)}/recording`, {
		headers: { Authorization: `Bearer ${DEMO_KEYS.full}` },
	});
	expect(answer.status).toBe(200);
	const body = (await answer.json()) as { url: string; content_type: string };
	const file = await fetch(body.url);
	expect(file.status).toBe(200);
	return {
		url: body.url,
		contentType: file.headers.get('content-type'),
		disposition: file.headers.get('content-disposition'),
		announced: body.content_type,
		bytes: Buffer.from(await file.arrayBuffer()),
	};
}

const withRecording = (emu: Emulator, n: number): CallRecord[] =>
	emu.calls.filter((call) => call.has_recording).slice(0, n);
/** The last segment of a URL's path: what a client takes as the file's name. */
const lastSegment = (url: string): string => new URL(url).pathname.split('/').pop()!;

describe("recordingFileNames: 'same'", () => {
	let emu: Emulator;
	beforeAll(async () => {
		emu = await start({ recordingFileNames: 'same' });
	});

	test('every file has the same name in its address and its Content-Disposition, and its own bytes', async () => {
		const calls = withRecording(emu, 3);
		const downloads = await Promise.all(calls.map((call) => download(emu, call)));
		expect(downloads.map((d) => lastSegment(d.url))).toEqual(calls.map(() => 'recording.mp3'));
		expect(downloads.map((d) => d.disposition)).toEqual(
			calls.map(() => 'attachment; filename="recording.mp3"'),
		);
		// Each address is the call's own (a folder per call), and so are the bytes.
		expect(new Set(downloads.map((d) => new URL(d.url).pathname)).size).toBe(3);
		downloads.forEach((d, index) => {
			expect(new URL(d.url).pathname).toBe(`/recordings/${calls[index].id}/recording.mp3`);
			expect(d.bytes.equals(recordingBytes(calls[index].id, BYTES))).toBe(true);
			expect([d.contentType, d.announced]).toEqual(['audio/mpeg', 'audio/mpeg']);
		});
	});

	test("a signed URL of one call does not serve another call's file", async () => {
		const [first, second] = withRecording(emu, 2);
		const { url } = await download(emu, first);
		const swapped = url.replace(encodeURIComponent(first.id), encodeURIComponent(second.id));
		expect(swapped).not.toBe(url);
		expect((await fetch(swapped)).status).toBe(403);
	});
});

describe('switching while running', () => {
	let emu: Emulator;
	beforeAll(async () => {
		emu = await start();
	});
	afterEach(() => emu.reset());

	test("'content' with application/octet-stream: an address without a file name, no Content-Disposition", async () => {
		emu.setRecordingFiles({
			recordingFileNames: 'content',
			recordingContentType: 'application/octet-stream',
		});
		const [call] = withRecording(emu, 1);
		const d = await download(emu, call);
		expect(new URL(d.url).pathname).toBe(`/recordings/${call.id}/content`);
		expect(d.disposition).toBeNull();
		expect([d.contentType, d.announced]).toEqual([
			'application/octet-stream',
			'application/octet-stream',
		]);
		expect(d.bytes.equals(recordingBytes(call.id, BYTES))).toBe(true);
	});

	test('over HTTP, and a URL handed out before the switch still serves, with the names of now', async () => {
		const control = connectEmulator(emu.baseUrl);
		const [call] = withRecording(emu, 1);
		const before = await download(emu, call);
		expect(lastSegment(before.url)).toBe(`${call.id}.mp3`);
		expect(before.disposition).toBe(`attachment; filename="${call.id}.mp3"`);

		await control.setRecordingFiles({ recordingFileNames: 'same' });
		expect((await control.state()).recordingFiles).toEqual({
			recordingFileNames: 'same',
			recordingContentType: 'audio/mpeg',
		});
		const old = await fetch(before.url);
		expect(old.headers.get('content-disposition')).toBe('attachment; filename="recording.mp3"');
		await old.arrayBuffer();
		expect(lastSegment((await download(emu, call)).url)).toBe('recording.mp3');
	});

	test('reset() goes back to the options the emulator started with', async () => {
		emu.setRecordingFiles({ recordingFileNames: 'same', recordingContentType: 'audio/wav' });
		emu.reset();
		const [call] = withRecording(emu, 1);
		const d = await download(emu, call);
		expect([lastSegment(d.url), d.contentType]).toEqual([`${call.id}.mp3`, 'audio/mpeg']);
	});

	test('refuses a naming or a content type that makes no sense, saying why', async () => {
		expect(() => emu.setRecordingFiles({ recordingFileNames: 'random' as never })).toThrow(
			'recordingFileNames must be one of by-call, same, content',
		);
		const answer = await fetch(`${emu.baseUrl}/__emulator/recording-files`, {
			method: 'POST',
			body: JSON.stringify({ recordingContentType: 'mp3' }),
		});
		expect(answer.status).toBe(400);
		expect(await answer.json()).toEqual({
			detail: 'recordingContentType must be a media type such as audio/mpeg',
		});
	});
});
