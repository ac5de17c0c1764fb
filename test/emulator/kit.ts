/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * What the emulator's own tests share: the node's suites trust the emulator, so its behaviour is
 * pinned down by these tests, over Node's global fetch and real sockets.
 */
import type { Emulator, EmulatorOptions } from '../../devkit/emulator';
import { DEMO_KEYS, startEmulator } from '../../devkit/emulator';

export const sleep = (ms: number): Promise<void> =>
	new Promise((resolve) => setTimeout(resolve, ms));
export const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` });

export const importLead = (
	emu: Emulator,
	body: unknown,
	key: string = DEMO_KEYS.full,
	contentType = 'application/json',
): Promise<Response> =>
	fetch(`${emu.baseUrl}/v1/leads`, {
		method: 'POST',
		headers: { ...bearer(key), 'Content-Type': contentType },
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by the assertions
export const read = (response: Response): Promise<any> => response.json();

export const get = (url: string, key: string = DEMO_KEYS.full): Promise<Response> =>
	fetch(url, { headers: bearer(key) });

/**
 * The calling file's emulators: `emu()` is one shared emulator, reset before each test;
 * `start(options)` starts another; all stop after the file.
 */
export function useEmulators(): {
	emu: () => Emulator;
	start: (options?: EmulatorOptions) => Promise<Emulator>;
} {
	let shared: Emulator;
	const started: Emulator[] = [];
	const start = async (options: EmulatorOptions = {}): Promise<Emulator> => {
		const instance = await startEmulator({ rateLimit: false, ...options });
		started.push(instance);
		return instance;
	};
	beforeAll(async () => {
		shared = await start();
	});
	beforeEach(() => {
		shared.reset();
		shared.setRateLimit(false);
	});
	afterAll(async () => {
		await Promise.all(started.map((instance) => instance.stop()));
	});
	return { emu: () => shared, start };
}
