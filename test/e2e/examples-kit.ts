/**
 * What the example suites share: one real n8n with the package installed from its tarball and
 * the emulator (openSession), the example credential, and the API requests the emulator saw.
 */
import { exampleCredential, loadExample } from '../../devkit/demo/examples';
import { openSession, type Session } from '../../devkit/demo/session';
import { N8N_MAJOR } from '../../devkit/n8n';
import { DEMO_KEYS } from '../../devkit/emulator';

// The emulator limits like the real service, only faster; the credential's budget matches it.
const RATE = { limit: 600, windowMs: 60_000 };

// n8n 1.x has no database store for binary data; the filesystem one is its queue-mode choice.
export const BINARY_DATA_MODE = N8N_MAJOR >= 2 ? 'database' : 'filesystem';

/**
 * Opens the session before the file's tests and closes it after them; `env` adds n8n env vars,
 * read when the session opens (after the file's earlier beforeAll hooks).
 */
export function useExamplesSession(env: () => Record<string, string> = () => ({})) {
	let current: Session | undefined;
	beforeAll(async () => {
		current = await openSession({
			emulator: { rateLimit: RATE },
			// The binary data mode of queue-mode installs (traffic.test.ts runs the filesystem one):
			// the downloads must survive n8n's database store on their way to disk.
			env: { N8N_DEFAULT_BINARY_DATA_MODE: BINARY_DATA_MODE, ...env() },
		});
	}, 600_000);
	afterAll(async () => {
		await current?.close();
	});
	const session = () => {
		if (current === undefined) throw new Error('the examples session is not open');
		return current;
	};
	return {
		session,
		/** The credential every example names, with the full key, paced at RATE. */
		credential: () => exampleCredential(session(), DEMO_KEYS.full, RATE.limit),
		/** A call's own day, as the trigger's callDate gives it in the workflow's time zone (UTC). */
		callDay: (id: string) =>
			session()
				.emulator.calls.find((call) => call.id === id)!
				.created_at.slice(0, 10),
		/** The requests the emulator's API saw on `path` since its last reset. */
		apiRequests: (path: string) => session().emulator.requests.filter((r) => r.path === path),
		/** Whether n8n accepts the example's trigger when it is published as imported. */
		publishes: async (file: string) => {
			const { server, filesDir } = session();
			const workflowId = await server.deployWorkflow(loadExample(file, filesDir));
			const stored = await server.rest<{ active: boolean }>('GET', `/workflows/${workflowId}`);
			await server.rest('POST', `/workflows/${workflowId}/deactivate`);
			return stored.active;
		},
	};
}
