import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { AcceptedBodies, bodyKey } from '../../../shared/acceptedBodies';
import { CREDENTIAL_TYPE, getConnectionSettings } from '../../../shared/transport';

export const skipUnchangedOption: INodeProperties = {
	displayName: 'Skip Unchanged Leads',
	name: 'skipUnchanged',
	type: 'boolean',
	default: false,
	description:
		'Whether to send only leads that changed since this node last imported them, for syncing the same list again and again. Turning it off forgets what it remembered.',
};

/** What a skipped lead's output item says about it. */
export const SKIP_REASON = 'Unchanged: this node already imported exactly these values';

/** The items of one run that use the option: their keys and which of them to skip. */
interface RunCheck {
	store?: AcceptedBodies;
	/** Each checked item's body and key (the body is built once per run). */
	items: Map<number, { body: IDataObject; key: string }>;
	accepted: Set<string>;
}

const checkByContext = new WeakMap<IExecuteFunctions, Promise<RunCheck>>();

function optionsOf(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	return ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
}

/** Dry Run: the item is shown, not sent, and leaves what this option remembers as it is. */
export function isDryRun(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return optionsOf(ctx, itemIndex).dryRun === true;
}

/**
 * Checks all items of the run at once (two database calls, not two per lead). An item whose
 * body cannot be built is left out: it fails on its own turn. Turning the option off and
 * running once forgets everything this node remembered, so the next run sends every lead.
 */
async function checkRun(
	ctx: IExecuteFunctions,
	bodyOf: (itemIndex: number) => IDataObject,
): Promise<RunCheck> {
	const items = ctx.getInputData();
	const on: number[] = [];
	let forget = false;
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		if (isDryRun(ctx, itemIndex)) continue;
		const option = optionsOf(ctx, itemIndex).skipUnchanged;
		if (option === true) on.push(itemIndex);
		// Only an option the user set to off: workflows without it are left alone.
		else if (option === false) forget = true;
	}
	if (on.length === 0 && !forget) return { items: new Map(), accepted: new Set() };

	const store = new AcceptedBodies(ctx);
	if (forget) await store.forgetAll();
	const checked: RunCheck['items'] = new Map();
	if (on.length > 0) {
		// The service a body was accepted by: this credential, at its Base URL.
		const { apiBase } = await getConnectionSettings.call(ctx);
		const credentialId = ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? '';
		const destination = `${credentialId} ${apiBase}`;
		for (const itemIndex of on) {
			try {
				const body = bodyOf(itemIndex);
				checked.set(itemIndex, { body, key: bodyKey(destination, body) });
			} catch {
				// Not sendable: the item reports its own error when its turn comes.
			}
		}
	}
	const keys = [...checked.values()].map((item) => item.key);
	return { store, items: checked, accepted: await store.check(keys) };
}

export interface SkipDecision {
	/** The item's body when the run's check built it; otherwise build it (and report its error). */
	body?: IDataObject;
	skip: boolean;
	/** After the service accepted the body: remember it (no-op when the option is off). */
	accepted(): Promise<void>;
	/** Marks the output item when the option is on. */
	mark(json: IDataObject): IDataObject;
}

/** Whether to send this item's body; the first call of a run checks every item. */
export async function skipDecision(
	ctx: IExecuteFunctions,
	itemIndex: number,
	bodyOf: (itemIndex: number) => IDataObject,
): Promise<SkipDecision> {
	let check = checkByContext.get(ctx);
	if (check === undefined) {
		check = checkRun(ctx, bodyOf);
		checkByContext.set(ctx, check);
	}
	const { store, items, accepted } = await check;
	const item = items.get(itemIndex);
	if (store === undefined || item === undefined) {
		return { skip: false, accepted: async () => {}, mark: (json) => json };
	}
	const { body, key } = item;
	const skip = accepted.has(key);
	return {
		body,
		skip,
		accepted: async () => {
			try {
				await store.recordAccepted(key);
			} catch (error) {
				// The lead is imported; not remembering it only means it is sent again next time.
				ctx.logger.warn(
					`Skip Unchanged Leads could not remember a lead: ${(error as Error).message}`,
				);
			}
		},
		mark: (json) =>
			skip ? { ...json, skipped: true, skipReason: SKIP_REASON } : { ...json, skipped: false },
	};
}
