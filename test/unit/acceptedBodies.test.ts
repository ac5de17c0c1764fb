/* eslint-disable @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The accepted-bodies protocol (nodes/shared/acceptedBodies.ts) against the engine suite's
 * in-memory n8n deduplication store, with the process killed at random store calls and a
 * memory small enough that n8n forgets entries all the time. Whatever happens, the node may
 * only ever skip a body the service accepted.
 */
import fc from 'fast-check';
import type { IExecuteFunctions } from 'n8n-workflow';

import { AcceptedBodies, bodyKey } from '../../nodes/shared/acceptedBodies';
import { InMemoryDeduplicator } from '../../devkit/engine/deduplicationStore';

class Killed extends Error {}

/** n8n's context as the protocol sees it: the store's helpers, the node and the workflow. */
function contextOf(
	store: InMemoryDeduplicator,
	kill: { afterCalls: number; duringLastCall?: boolean } = { afterCalls: Infinity },
): IExecuteFunctions {
	const contextData = { workflow: { id: 'wf', active: true }, node: { id: 'node-1' } as never };
	let calls = 0;
	// Killed before a call reaches the database, or after it changed the database but before
	// the node heard back.
	const guarded =
		<A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
		async (...args: A): Promise<R> => {
			calls++;
			if (calls > kill.afterCalls + 1) throw new Killed();
			if (calls === kill.afterCalls + 1) {
				if (kill.duringLastCall) await call(...args);
				throw new Killed();
			}
			return await call(...args);
		};
	const helpers = {
		checkProcessedAndRecord: guarded((items, scope, options) =>
			store.checkProcessedAndRecord(
				items as string[],
				scope as 'node',
				contextData,
				options as never,
			),
		),
		removeProcessed: guarded((items, scope, options) =>
			store.removeProcessed(items as string[], scope as 'node', contextData, options as never),
		),
		clearAllProcessedItems: guarded((scope) =>
			store.clearAllProcessedItems(scope as 'node', contextData),
		),
		getProcessedDataCount: guarded((scope, options) =>
			store.getProcessedDataCount(scope as 'node', contextData, options as never),
		),
	};
	return {
		helpers,
		getNode: () => ({ id: 'node-1', name: 'Import Lead' }),
		getWorkflow: () => ({ id: 'wf', active: true }),
	} as unknown as IExecuteFunctions;
}

const keyOf = (body: number) =>
	bodyKey('1 http://127.0.0.1:1', { phone_e164: `+1415555000${body}` });

/** One run: a list of bodies, the service's answer for each sent one, where the process dies. */
const runArbitrary = fc.record({
	bodies: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 8 }),
	answers: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
	kill: fc.option(
		fc.record({ afterCalls: fc.integer({ min: 0, max: 12 }), duringLastCall: fc.boolean() }),
		{
			nil: undefined,
		},
	),
});

test('a killed process or a forgotten entry never makes a body look accepted that was not', async () => {
	await fc.assert(
		fc.asyncProperty(
			fc.array(runArbitrary, { minLength: 1, maxLength: 12 }),
			fc.integer({ min: 2, max: 12 }),
			async (runs, maxEntries) => {
				const store = new InMemoryDeduplicator();
				const acceptedByService = new Set<string>();
				for (const run of runs) {
					const accepted = new AcceptedBodies(contextOf(store, run.kill), maxEntries);
					try {
						const keys = run.bodies.map(keyOf);
						const skipped = await accepted.check(keys);
						for (const key of skipped) expect(acceptedByService.has(key)).toBe(true);
						for (const [index, key] of keys.entries()) {
							if (skipped.has(key) || !run.answers[index]) continue;
							acceptedByService.add(key);
							await accepted.recordAccepted(key);
						}
					} catch (error) {
						// The node wraps store failures in a NodeOperationError naming the option.
						if (!((error as Error).cause instanceof Killed)) throw error;
					}
				}
			},
		),
		{ numRuns: 300 },
	);
});

test('without kills, an accepted body is skipped on every later run while it is remembered', async () => {
	const store = new InMemoryDeduplicator();
	const first = new AcceptedBodies(contextOf(store));
	const keys = [1, 2, 3].map(keyOf);
	expect(await first.check(keys)).toEqual(new Set());
	await first.recordAccepted(keys[0]);
	await first.recordAccepted(keys[2]);

	const second = new AcceptedBodies(contextOf(store));
	expect(await second.check(keys)).toEqual(new Set([keys[0], keys[2]]));
	expect(await second.check(keys)).toEqual(new Set([keys[0], keys[2]]));

	// 4 entries stored (2 accepted, 1 pending with its marker) and 4 bodies to check: past a
	// limit of 7, so everything is forgotten first, which costs one re-send of each.
	const small = new AcceptedBodies(contextOf(store), 7);
	expect(await small.check([...keys, keyOf(4)])).toEqual(new Set());
	expect(store.entryCount('wf')).toBe(8);
});
