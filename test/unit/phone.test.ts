import { normalizePhone } from '../../nodes/LeadCallAccess/helpers/phone';

describe('normalizePhone', () => {
	test.each([
		['+14155552671', undefined, '+14155552671'],
		[' +1 (415) 555-2671 ', undefined, '+14155552671'],
		['0044 20 7946 0958', undefined, '+442079460958'],
		['(415) 555-2671', '1', '+14155552671'],
		['1-415-555-2671', '1', '+14155552671'],
		['415.555.2671', '1', '+14155552671'],
		['020 7946 0958', '44', '+442079460958'],
		['06 1234 5678', '39', '+390612345678'],
		['030 123456', '49', '+4930123456'],
	])('%s with country code %s -> %s', (raw, code, expected) => {
		expect(normalizePhone(raw, code)).toEqual({ ok: true, e164: expected });
	});

	test.each([
		['', undefined, /is empty/],
		['4155552671', undefined, /has no country code/],
		['+1 415 555 2671 ext 5', undefined, /contains characters/],
		['+1+4155552671', undefined, /not at the start/],
		['+0123456789', undefined, /not a valid E\.164/],
		['+1234', undefined, /not a valid E\.164/],
		['+1234567890123456', undefined, /not a valid E\.164/],
		['555 2671', 'abc', /default country code/],
	])('%s is rejected (%s)', (raw, code, reason) => {
		const result = normalizePhone(raw, code);
		expect(result.ok).toBe(false);
		expect(result.ok ? '' : result.reason).toMatch(reason);
	});
});
