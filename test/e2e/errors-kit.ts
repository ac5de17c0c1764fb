/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * What the error suites share: one real n8n (debug logging, where a careless node or helper
 * would print request options) with the package from its tarball and the emulator without a
 * rate limit, reset before each test; one credential per key; a workflow run over items.
 */
import { openSession, type Session } from '../../devkit/demo/session';
import { nodeWorkflow, withItems } from '../../devkit/workflows';
import type { CredentialJson, NodeExecutionItem } from '../../devkit/n8n';
import { DEMO_KEYS } from '../../devkit/emulator';

// Well-formed but unknown to the API, and malformed: both must stay out of n8n's records too.
export const UNKNOWN_KEY = `pf_live_e2eUnknownKey_${'x'.repeat(29)}`;
export const MALFORMED_KEY = 'pf_live_e2eMalformedKey';

export const pairs = (items: NodeExecutionItem[]) =>
	items.map((item) => (item.pairedItem as { item: number }).item);

export const leadItems = (count: number, start: number) =>
	Array.from({ length: count }, (_, index) => ({ phone: `+1415555${start + index}00` }));

/** Opens the session before the file's tests, resets the emulator before each, closes it after. */
export function useErrorsSession() {
	let current: Session | undefined;
	beforeAll(async () => {
		current = await openSession({
			emulator: { rateLimit: false },
			env: { N8N_LOG_LEVEL: 'debug' },
		});
	}, 600_000);
	afterAll(async () => {
		await current?.close();
	});
	beforeEach(() => session().emulator.reset());
	const session = () => {
		if (current === undefined) throw new Error('the errors session is not open');
		return current;
	};

	const credentials = new Map<string, CredentialJson>();
	/** One n8n credential per key and base URL, created on first use; its name holds no key. */
	function credentialFor(apiKey: string, baseUrl?: string): CredentialJson {
		const slot = `${apiKey} ${baseUrl ?? ''}`;
		if (!credentials.has(slot)) {
			const id = `key-${credentials.size + 1}`;
			credentials.set(slot, session().credential(id, { apiKey, baseUrl }));
		}
		return credentials.get(slot)!;
	}

	/** The node with `parameters` over `items`, run in n8n with the key's credential. */
	async function run(
		parameters: Record<string, unknown>,
		items: Array<Record<string, unknown>>,
		options: Partial<Parameters<typeof nodeWorkflow>[0]> = {},
		apiKey: string = DEMO_KEYS.full,
	) {
		const credential = credentialFor(apiKey);
		const workflow = nodeWorkflow({ parameters, credential, ...options });
		return await session().server.runWorkflow(workflow, [credential], withItems(items));
	}

	/** The statuses of the API's answers since the last reset, in order of value. */
	const statuses = () =>
		session()
			.emulator.requests.map((request) => request.status)
			.sort((a, b) => +a - +b);

	return { session, credentialFor, run, statuses };
}
