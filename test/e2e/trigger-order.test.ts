/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The trigger in a real n8n 2.40.7 against lists in the other plausible shapes the spec leaves
 * open: oldest first (new calls appended on the last page) or newest first, with the calls'
 * time under another name than `created_at` or with no time at all, paged by cursor, Link
 * header or page number. Each configuration gets its own emulator and credential in one n8n.
 * One oldest-first list is polled by n8n's own "Every Minute" schedule; a 10 000-call list
 * measures the requests a poll costs (printed).
 */
import {
	emittedIds,
	listRequestsSince,
	oldestFirst,
	TriggerStage,
	triggerWorkflow,
} from './trigger-helpers';
import {
	DEMO_KEYS,
	startEmulator,
	type Emulator,
	type EmulatorOptions,
	type ListOrder,
	type PaginationStyle,
} from '../../devkit/emulator';

jest.setTimeout(300_000);

let stage: TriggerStage;
const emulators: Emulator[] = [];

beforeAll(async () => {
	stage = await TriggerStage.open({ rateLimit: false, seedCalls: 1 });
}, 600_000);

afterEach(async () => {
	await stage?.unpublishAll();
});

afterAll(async () => {
	await stage?.close();
	await Promise.all(emulators.map(async (emulator) => await emulator.stop()));
});

/** An emulator of its own and a credential for it; small pages so new calls span several. */
async function listWith(name: string, options: EmulatorOptions) {
	const emulator = await startEmulator({
		rateLimit: false,
		seedCalls: 30,
		maxPageSize: 4,
		defaultPageSize: 4,
		...options,
	});
	emulators.push(emulator);
	const credentialId = await stage.createCredential(name, DEMO_KEYS.full, emulator.baseUrl);
	const deploy = (parameters: Record<string, unknown> = {}) =>
		stage.deploy(triggerWorkflow({ credentialId, parameters }));
	return { emulator, deploy };
}

const CASES: Array<[ListOrder, string | null, PaginationStyle]> = [
	['oldest-first', 'started_at', 'data-next_cursor'],
	['oldest-first', null, 'array-link-header'],
	['oldest-first', 'timestamp', 'data-page'],
	['newest-first', 'timestamp', 'array-link-header'],
	['newest-first', null, 'data-page'],
];

describe.each(CASES)('a %s list, time in %s, paged by %s', (listOrder, callTimeField, style) => {
	test('each new call is emitted once, oldest first; Fetch Test Event shows the newest', async () => {
		const { emulator, deploy } = await listWith(`${listOrder} ${callTimeField} ${style}`, {
			listOrder,
			callTimeField,
			paginationStyle: style,
		});
		const workflow = await deploy();
		expect(await workflow.waitForExecutions(0)).toEqual([]);

		const first = emulator.addCalls(6);
		await workflow.poll();
		const second = emulator.addCalls(1);
		await workflow.poll();
		await workflow.poll();
		const executions = await workflow.waitForExecutions(2);
		expect(executions.map(emittedIds)).toEqual([oldestFirst(first), oldestFirst(second)]);

		// Without times "most recent" follows the list's order, which List Order then names.
		if (callTimeField === null) return;
		const [newest] = emulator.addCalls(2);
		const test = await workflow.fetchTestEvent();
		expect(emittedIds(test)).toEqual([newest.id]);
	});
});

describe("n8n's own schedule on an oldest-first list", () => {
	test('two "Every Minute" polls each emit the calls appended before them', async () => {
		const { emulator, deploy } = await listWith('scheduled oldest-first', {
			listOrder: 'oldest-first',
			callTimeField: 'timestamp',
		});
		const workflow = await deploy({ pollTimes: { item: [{ mode: 'everyMinute' }] } });
		const one = emulator.addCalls(3);
		const [tick] = await workflow.waitForExecutions(1, 90_000);
		expect(tick.mode).toBe('trigger');
		expect(emittedIds(tick)).toEqual(oldestFirst(one));

		const two = emulator.addCalls(2);
		const executions = await workflow.waitForExecutions(2, 90_000);
		expect(emittedIds(executions[1])).toEqual(oldestFirst(two));
	});
});

describe('a list of 10 000 calls', () => {
	test.each<[ListOrder, string | null]>([
		['newest-first', 'created_at'],
		['oldest-first', 'timestamp'],
		['oldest-first', null],
	])(
		'%s, time in %s: a poll with 0 to 3 new calls costs at most 2 requests',
		async (listOrder, callTimeField) => {
			const { emulator, deploy } = await listWith(`10k ${listOrder} ${callTimeField}`, {
				listOrder,
				callTimeField,
				seedCalls: 10_000,
				maxPageSize: 100,
				defaultPageSize: 100,
			});
			const costs: Record<string, number> = {};
			let mark = emulator.requests.length;
			const workflow = await deploy();
			costs.activation = listRequestsSince(emulator, mark).length;
			const expected: string[][] = [];
			for (const [index, count] of [0, 1, 3, 0, 2].entries()) {
				const added = emulator.addCalls(count);
				if (count > 0) expected.push(oldestFirst(added));
				mark = emulator.requests.length;
				await workflow.poll();
				costs[`poll ${index + 1} (${count} new)`] = listRequestsSince(emulator, mark).length;
			}
			process.stdout.write(
				`real n8n, requests per poll, ${listOrder} list of 10 000, time in ${callTimeField}: ${JSON.stringify(costs)}\n`,
			);
			const executions = await workflow.waitForExecutions(expected.length);
			expect(executions.map(emittedIds)).toEqual(expected);
			const { activation, ...polls } = costs;
			expect(activation).toBeGreaterThan(0);
			// Without times the order of an oldest-first list is learnt from its first new calls: that
			// one poll also reads the first page.
			const learning = callTimeField === null ? 1 : 0;
			expect(Object.values(polls).filter((count) => count > 2).length).toBeLessThanOrEqual(
				learning,
			);
			expect(Math.max(...Object.values(polls))).toBeLessThanOrEqual(3);
		},
	);
});
