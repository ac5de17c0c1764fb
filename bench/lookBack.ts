/* eslint-disable no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run bench:lookback`: what Look Back costs. A day of 2,000 calls (one every 43 s), the
 * trigger checked on a schedule, each check's calls-list requests counted, with Look Back 0 and
 * at its default (2 hours), on a list newest first and oldest first, pages of 100. The trigger
 * runs as n8n runs it (n8n-core's PollContext, devkit/engine/trigger.ts), against the emulator;
 * the day is simulated by the calls' own times, so the run takes seconds. Prints a Markdown table.
 */
import './lib/inProcess';
import type { ListOrder } from '../devkit/emulator';
import { startEmulator } from '../devkit/emulator';
import { TriggerUnderTest, listRequests } from '../devkit/engine/trigger';

const CALLS_PER_DAY = 2_000;
const SPACING_MS = (24 * 3_600_000) / CALLS_PER_DAY;

async function day(listOrder: ListOrder, lookBackHours: number, everyMinutes: number) {
	const emulator = await startEmulator({
		rateLimit: false,
		seedCalls: 1,
		listOrder,
		maxPageSize: 100,
	});
	const pollTimes = { item: [{ mode: 'everyX', value: everyMinutes, unit: 'minutes' }] };
	const trigger = new TriggerUnderTest(emulator, { pollTimes, options: { lookBackHours } });
	await trigger.poll();
	let checkAt = Date.parse(emulator.calls[0].created_at);
	let callAt = checkAt + SPACING_MS;
	const perCheck: number[] = [];
	let delivered = 0;
	for (let check = 0; check < (24 * 60) / everyMinutes; check++) {
		checkAt += everyMinutes * 60_000;
		for (; callAt <= checkAt; callAt += SPACING_MS)
			emulator.addCalls(1, { created_at: new Date(callAt).toISOString() });
		const before = listRequests(emulator).length;
		delivered += (await trigger.poll()).length;
		perCheck.push(listRequests(emulator).length - before);
	}
	await emulator.stop();
	const total = perCheck.reduce((sum, count) => sum + count, 0);
	const mean = (total / perCheck.length).toFixed(2);
	return `| ${listOrder} | every ${everyMinutes} min | ${lookBackHours} h | ${delivered} | ${mean} | ${Math.max(...perCheck)} | ${total} |`;
}

void (async () => {
	console.log(
		'| list | checks | Look Back | calls delivered | requests per check | most | a day |',
	);
	console.log('| - | - | - | - | - | - | - |');
	for (const listOrder of ['newest-first', 'oldest-first'] as ListOrder[])
		for (const everyMinutes of [1, 60])
			for (const lookBackHours of [0, 2])
				console.log(await day(listOrder, lookBackHours, everyMinutes));
})();
