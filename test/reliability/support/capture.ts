/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- dev code, not in the package n8n loads: node rules do not apply */
import { format } from 'util';

type Writer = typeof process.stdout.write;
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/**
 * Records everything written to the console, stdout and stderr while it is installed (n8n's
 * logger writes through the console), and still lets it through. Used to check that no log
 * line carries the API key.
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
				return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
			}) as Writer;
			this.restoreAll.push(() => (stream.write = original));
		}
		for (const method of CONSOLE_METHODS) {
			const original = console[method];
			console[method] = (...args: unknown[]) => {
				this.chunks.push(format(...args));
				original.apply(console, args);
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
