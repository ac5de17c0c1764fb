/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Every n8n server, sandbox and emulator the bench starts registers how to stop it here, so a
 * failed measurement, an exception or Ctrl+C never leaves a process or a temp folder behind.
 */
type Disposer = { name: string; dispose: () => unknown };

const disposers: Disposer[] = [];

/** Registers a disposer; the returned function runs it now (once) and unregisters it. */
export function onCleanup(name: string, dispose: () => unknown): () => Promise<void> {
	const entry: Disposer = { name, dispose };
	disposers.push(entry);
	return async () => {
		const index = disposers.indexOf(entry);
		if (index === -1) return;
		disposers.splice(index, 1);
		await runOne(entry);
	};
}

async function runOne({ name, dispose }: Disposer): Promise<void> {
	let timer: NodeJS.Timeout | undefined;
	try {
		// A stuck stop must not keep the whole bench from exiting.
		await Promise.race([
			Promise.resolve().then(dispose),
			new Promise((_, reject) => {
				timer = setTimeout(() => reject(new Error('timed out after 30 s')), 30_000);
			}),
		]);
	} catch (error) {
		console.error(`[bench] cleanup of ${name} failed: ${(error as Error).message}`);
	} finally {
		clearTimeout(timer);
	}
}

/** Stops everything still registered, newest first (servers before their sandboxes). */
export async function cleanupAll(): Promise<void> {
	while (disposers.length > 0) await runOne(disposers.pop() as Disposer);
}

/** "[tag 12:34:56] message" on stderr: stdout carries only the tables. */
export const logger = (tag: string) => (message: string) =>
	console.error(`[${tag} ${new Date().toISOString().slice(11, 19)}] ${message}`);

/**
 * Runs a bench script's main: Ctrl+C and a failure both stop everything it started, and a
 * failure sets a non-zero exit code with the stack under the script's tag.
 */
export function runBench(tag: string, main: () => Promise<void>): void {
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		process.once(signal, () => {
			console.error(`\n[bench] ${signal}: stopping servers and emulators`);
			void cleanupAll().finally(() => process.exit(130));
		});
	}
	main()
		.catch((error: unknown) => {
			console.error(`[${tag}] failed: ${(error as Error).stack ?? String(error)}`);
			process.exitCode = 1;
		})
		.finally(() => cleanupAll());
}
