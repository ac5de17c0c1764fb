/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run phone:measure [-- <phone.ts of another version>]`: right / refused / wrong over every
 * example number libphonenumber-js ships, in every written form (devkit/phone/oracle.ts), by form.
 * Given another version's nodes/LeadCallAccess/helpers/phone.ts (e.g. from `git show`), measures
 * that one instead: versions before 0.3.0 took a calling code only (normalizeCountryCode).
 */
import { resolve } from 'path';

import type { Normaliser, Verdict } from './oracle';
import { judge, tally, writtenNumbers } from './oracle';

type PhoneModule = {
	normalizePhone: (raw: string, defaultCountry?: unknown) => { ok: boolean; e164?: string };
	normalizeCountryCode?: (raw: unknown) => string | undefined;
};

const file = resolve(process.argv[2] ?? `${__dirname}/../../nodes/LeadCallAccess/helpers/phone.ts`);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const phone = require(file) as PhoneModule;
const normalise: Normaliser = (text, defaultCountry) => {
	const code = phone.normalizeCountryCode
		? phone.normalizeCountryCode(defaultCountry)
		: defaultCountry;
	const result = phone.normalizePhone(text, code);
	return result.ok ? result.e164 : undefined;
};

const verdicts = writtenNumbers().map((written) => judge(normalise, written));
const byForm = new Map<string, Verdict[]>();
for (const verdict of verdicts) {
	const key = `${verdict.form}, Default Country ${verdict.defaultCountry === '' ? 'empty' : /^\d/.test(verdict.defaultCountry) ? 'calling code' : 'country'}`;
	byForm.set(key, [...(byForm.get(key) ?? []), verdict]);
}
console.log(`${file}\nall: ${JSON.stringify(tally(verdicts))} of ${verdicts.length}`);
for (const [form, group] of byForm) console.log(`${form}: ${JSON.stringify(tally(group))}`);
const wrong = verdicts.filter((verdict) => verdict.outcome === 'wrong');
for (const verdict of wrong.slice(0, Number(process.env.SHOW ?? 10))) {
	console.log(
		`wrong: ${JSON.stringify(verdict.text)} (${verdict.country}, Default Country ${JSON.stringify(verdict.defaultCountry)}) sent ${verdict.sent}, library ${verdict.library.e164 ?? 'none'}${verdict.library.possible ? '' : ' (not possible)'}${verdict.library.valid ? '' : ' (not valid)'}`,
	);
}
