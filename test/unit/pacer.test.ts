import { RequestPacer, pacerForKey } from '../../nodes/shared/transport/pacer';

// 60 per minute: 1000 ms apart plus the 2% margin.
const INTERVAL = 1020;

describe('RequestPacer', () => {
	test('spaces reservations evenly, with a one-time gap after an idle start', () => {
		const pacer = new RequestPacer(INTERVAL);
		const waits = [0, 0, 0, 0].map(() => pacer.reserveSlot(10_000));
		expect(waits[0]).toBe(0);
		expect(waits[1] - waits[0]).toBeGreaterThan(INTERVAL); // the idle-start gap
		expect(waits[2] - waits[1]).toBe(INTERVAL);
		expect(waits[3] - waits[2]).toBe(INTERVAL);
	});

	test('a 429 pause holds back requests whose slot was reserved before it', () => {
		const pacer = new RequestPacer(INTERVAL);
		expect(pacer.reserveSlot(0)).toBe(0);
		expect(pacer.depart(0)).toBe(0);
		const reservedWait = pacer.reserveSlot(0);
		pacer.pauseUntil(30_000);
		// When its slot comes, the request must still wait for the pause to end.
		expect(pacer.depart(reservedWait)).toBe(30_000 - reservedWait);
	});

	test('departures keep the spacing even when a request left late', () => {
		const pacer = new RequestPacer(INTERVAL);
		expect(pacer.depart(5_000)).toBe(0);
		// The next one is due already, but may not leave less than an interval after the last.
		expect(pacer.depart(5_100)).toBe(INTERVAL - 100);
	});

	test('one pacer per key, shared by every caller; other keys are independent', () => {
		const key = `pf_live_${'k'.repeat(43)}`;
		expect(pacerForKey(key, 60)).toBe(pacerForKey(key, 60));
		expect(pacerForKey(`pf_live_${'j'.repeat(43)}`, 60)).not.toBe(pacerForKey(key, 60));
	});

	test('0 requests per minute turns pacing off', () => {
		const pacer = pacerForKey(`pf_live_${'z'.repeat(43)}`, 0);
		expect([0, 0, 0].map(() => pacer.reserveSlot(1_000))).toEqual([0, 0, 0]);
		expect([0, 0, 0].map(() => pacer.depart(1_000))).toEqual([0, 0, 0]);
	});
});
