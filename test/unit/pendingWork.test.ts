import {
	expectRequests,
	pendingRequests,
	runEnded,
	runSendsOn,
} from '../../nodes/shared/transport/pendingWork';

describe('pendingWork: what the runs in this process still have to send on a key', () => {
	const [first, second] = [{}, {}];
	const [keyA, keyB] = [{}, {}];
	afterEach(() => {
		runEnded(first);
		runEnded(second);
	});

	test('unknown (Infinity) while no run has said', () => {
		expect(pendingRequests(keyA)).toBe(Infinity);
	});

	test('the runs add up; an ended run no longer counts', () => {
		expectRequests(first, 17);
		expectRequests(second, 3);
		expect(pendingRequests(keyA)).toBe(20);
		expectRequests(first, 16);
		expect(pendingRequests(keyA)).toBe(19);
		runEnded(second);
		expect(pendingRequests(keyA)).toBe(16);
	});

	test('one run that cannot tell makes the whole unknown', () => {
		expectRequests(first, 2);
		expectRequests(second, Infinity);
		expect(pendingRequests(keyA)).toBe(Infinity);
	});

	test('a run counts only for its key once it has sent on it; before, for every key', () => {
		expectRequests(first, 5);
		expectRequests(second, Infinity);
		runSendsOn(first, keyA);
		expect(pendingRequests(keyB)).toBe(Infinity);
		runSendsOn(second, keyB);
		expect(pendingRequests(keyA)).toBe(5);
		expect(pendingRequests(keyB)).toBe(Infinity);
		runEnded(second);
		expect(pendingRequests(keyB)).toBe(Infinity);
		expect(pendingRequests(keyA)).toBe(5);
	});
});
