/** The API emulator, in the bench process on loopback, with a fresh key per measurement. */
import { randomBytes } from 'crypto';

import { startEmulator, type Emulator, type EmulatorOptions } from '../../devkit/emulator';
import { onCleanup } from './cleanup';

/**
 * A new key per measurement: the node keeps one rate budget per key for the life of the n8n
 * process, so reusing a key would carry one row's pacing state into the next.
 */
export function newApiKey(): string {
	return `pf_live_${randomBytes(33).toString('base64url').slice(0, 43)}`;
}

export interface BenchEmulator {
	emulator: Emulator;
	apiKey: string;
	stop(): Promise<void>;
}

export async function startBenchEmulator(
	options: Omit<EmulatorOptions, 'keys' | 'host'>,
): Promise<BenchEmulator> {
	const apiKey = newApiKey();
	const emulator = await startEmulator({
		...options,
		host: '127.0.0.1',
		keys: [{ key: apiKey, scopes: ['leads:write', 'calls:read', 'recordings:read'] }],
	});
	const stop = onCleanup('emulator', () => emulator.stop());
	return { emulator, apiKey, stop };
}
