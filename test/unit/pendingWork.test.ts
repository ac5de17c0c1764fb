import {
	expectRequests,
	pendingRequests,
	runEnded,
} from '../../nodes/shared/transport/pendingWork';

describe('pendingWork: what the runs in this process still have to send', () => {
	const [first, second] = [{}, {}];
	afterEach(() => {
		runEnded(first);
		runEnded(second);
	});

	test('unknown (Infinity) while no run has said', () => {
		expect(pendingRequests()).toBe(Infinity);
	});

	test('the runs add up; an ended run no longer counts', () => {
		expectRequests(first, 17);
		expectRequests(second, 3);
		expect(pendingRequests()).toBe(20);
		expectRequests(first, 16);
		expect(pendingRequests()).toBe(19);
		runEnded(second);
		expect(pendingRequests()).toBe(16);
	});

	test('one run that cannot tell makes the whole unknown', () => {
		expectRequests(first, 2);
		expectRequests(second, Infinity);
		expect(pendingRequests()).toBe(Infinity);
	});
});
