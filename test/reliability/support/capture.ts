/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
import { format } from 'util';

type Writer = typeof process.stdout.write;
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/**
 * Records everything written to the console, stdout and stderr while it is installed (n8n's
 * logger writes through the console), instead of printing it. Used to check that no log line
 * carries the API key; the logs of the faults these suites provoke are expected, so a passing
 * run prints only jest's output. Jest reports its results after the file, once this is removed.
 */
export class OutputCapture {
	private chunks: string[] = [];
	private restoreAll: Array<() => void> = [];

	install(): void {
		for (const stream of [process.stdout, process.stderr]) {
			const original: Writer = stream.write.bind(stream);
			stream.write = ((chunk: unknown, ...rest: unknown[]) => {
				this.chunks.push(
					typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(),
				);
				// Honour a write callback, as the stream would.
				const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
				callback?.();
				return true;
			}) as Writer;
			this.restoreAll.push(() => (stream.write = original));
		}
		for (const method of CONSOLE_METHODS) {
			const original = console[method];
			console[method] = (...args: unknown[]) => {
				this.chunks.push(format(...args));
			};
			this.restoreAll.push(() => (console[method] = original));
		}
	}

	text(): string {
		return this.chunks.join('\n');
	}

	restore(): void {
		for (const restore of this.restoreAll.reverse()) restore();
		this.restoreAll = [];
	}
}
