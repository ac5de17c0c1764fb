import { recordingFileName } from '../../nodes/shared/recordingFile';

// Files are named after their call: a name must be safe on every file system and archive, and
// two different call IDs must never share one (a same-named file overwrites the other).
describe('recordingFileName', () => {
	test.each([
		['call_1', 'audio/mpeg', undefined, 'call_1.mp3'],
		['call_1', 'application/octet-stream', 'recording.WAV', 'call_1.wav'],
		['call_1', undefined, undefined, 'call_1.bin'],
		['a/b\\c:d', 'audio/mpeg', undefined, 'a%2Fb%5Cc%3Ad.mp3'],
		// % itself is escaped, so 'a%2Fb' and 'a/b' never share a name.
		['a%2Fb', 'audio/mpeg', undefined, 'a%252Fb.mp3'],
	])('%s (%s, host name %s) is stored as %s', (id, contentType, hostName, expected) => {
		expect(recordingFileName(id, contentType, hostName)).toBe(expected);
	});
});
