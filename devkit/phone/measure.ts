/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run phone:measure [-- <phone.ts of another version>]`: right / refused / wrong over every
 * example number libphonenumber-js ships, in every written form (devkit/phone/oracle.ts), by form,
 * and over random digits after random prefixes (the same 20,000 each time: a fixed seed; set
 * PHONE_RANDOM_RUNS for more). Then the same with Validate Phone off, where "wrong" is anything
 * sent that the library reads differently (a number it finds invalid is the library's reading).
 * Each run also counts the inputs the library reads as two valid numbers (the node must refuse
 * them, issue 42) and how many of those the node refused.
 * Given another version's nodes/LeadCallAccess/helpers/phone.ts (e.g. from `git show`), measures
 * that one instead: versions before 0.3.0 took a calling code only (normalizeCountryCode).
 */
import fc from 'fast-check';
import { resolve } from 'path';

import type { Normaliser, Verdict, WrittenNumber } from './oracle';
import { judge, randomWrittenNumber, tally, writtenNumbers } from './oracle';

type PhoneModule = {
	normalizePhone: (
		raw: string,
		defaultCountry?: unknown,
		options?: { validate?: boolean },
	) => { ok: boolean; e164?: string };
	normalizeCountryCode?: (raw: unknown) => string | undefined;
};

const file = resolve(process.argv[2] ?? `${__dirname}/../../nodes/LeadCallAccess/helpers/phone.ts`);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const phone = require(file) as PhoneModule;
const normaliser =
	(validate: boolean): Normaliser =>
	(text, defaultCountry) => {
		const code = phone.normalizeCountryCode
			? phone.normalizeCountryCode(defaultCountry)
			: defaultCountry;
		const result = phone.normalizePhone(text, code, { validate });
		return result.ok ? result.e164 : undefined;
	};

const examples = writtenNumbers();
const random = fc.sample(randomWrittenNumber, {
	seed: 18,
	numRuns: Number(process.env.PHONE_RANDOM_RUNS ?? 20000),
});
const defaultKind = ({ defaultCountry }: WrittenNumber) =>
	defaultCountry === '' ? 'empty' : /^\d/.test(defaultCountry) ? 'calling code' : 'country';

console.log(file);
for (const validate of [true, false]) {
	const normalise = normaliser(validate);
	const verdicts = examples.map((written) => judge(normalise, written));
	// Validate Phone off promises the library's reading, not a valid number.
	const outcome = (verdict: Verdict) =>
		validate ||
		verdict.sent === undefined ||
		verdict.sent !== verdict.library.e164 ||
		verdict.twoWays
			? verdict
			: { ...verdict, outcome: 'right' as const };
	const judged = verdicts.map(outcome);
	const randomVerdicts = random.map((written) => outcome(judge(normalise, written)));
	console.log(`\nValidate Phone ${validate ? 'on' : 'off'}`);
	console.log(`all examples: ${JSON.stringify(tally(judged))} of ${judged.length}`);
	const byForm = new Map<string, Verdict[]>();
	for (const verdict of judged) {
		const key = `${verdict.form}, Default Country ${defaultKind(verdict)}`;
		byForm.set(key, [...(byForm.get(key) ?? []), verdict]);
	}
	if (validate)
		for (const [form, group] of byForm) console.log(`${form}: ${JSON.stringify(tally(group))}`);
	console.log(`random: ${JSON.stringify(tally(randomVerdicts))} of ${randomVerdicts.length}`);
	for (const [name, group] of Object.entries({ examples: judged, random: randomVerdicts })) {
		const twoWays = group.filter((verdict) => verdict.twoWays);
		const refused = twoWays.filter((verdict) => verdict.sent === undefined).length;
		console.log(`${name} read two ways: ${twoWays.length} of ${group.length}, refused ${refused}`);
	}
	const wrong = [...judged, ...randomVerdicts].filter((verdict) => verdict.outcome === 'wrong');
	for (const verdict of wrong.slice(0, Number(process.env.SHOW ?? 10))) {
		console.log(
			`wrong: ${JSON.stringify(verdict.text)} (${verdict.country}, Default Country ${JSON.stringify(verdict.defaultCountry)}) sent ${verdict.sent}, library ${verdict.library.e164 ?? 'none'}${verdict.library.possible ? '' : ' (not possible)'}${verdict.library.valid ? '' : ' (not valid)'}`,
		);
	}
}
