/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
import { format } from 'util';

/**
 * Records everything written to the console, stdout and stderr while it is installed (n8n's
 * logger writes through the console), instead of printing it. Used to check that no log line
 * carries the API key; the logs of the faults these suites provoke are expected, so a passing
 * run prints only jest's output. Jest reports its results after the file, once this is removed.
 */
export class OutputCapture {
	private chunks: string[] = [];
	private spies: jest.SpyInstance[] = [];

	install(): void {
		for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
			const record = (...args: unknown[]) => void this.chunks.push(format(...args));
			this.spies.push(jest.spyOn(console, method).mockImplementation(record));
		}
		for (const stream of [process.stdout, process.stderr]) {
			const write = (chunk: unknown, ...rest: unknown[]) => {
				this.chunks.push(
					String(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array)),
				);
				// Honour a write callback, as the stream would.
				(rest.find((arg) => typeof arg === 'function') as (() => void) | undefined)?.();
				return true;
			};
			this.spies.push(jest.spyOn(stream, 'write').mockImplementation(write));
		}
	}

	text(): string {
		return this.chunks.join('\n');
	}

	restore(): void {
		for (const spy of this.spies) spy.mockRestore();
		this.spies = [];
	}
}
