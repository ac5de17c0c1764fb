/**
 * Fault injection. Faults sit in a FIFO queue; each incoming request takes the first queued fault
 * that matches it (kind, origin, method, path) and spends one of its `count` uses. Control routes
 * are never affected. 'expire-signed-urls' is a switch rather than a queued fault: it stays on
 * until clearFaults()/reset().
 */
import { reasonPhrase, Reply } from './http';
import { Fault, PathMatcher } from './types';

export type Origin = 'api' | 'files';

interface QueuedFault {
	fault: Exclude<Fault, { kind: 'expire-signed-urls' }>;
	remaining: number;
}

/** A RegExp as sent over HTTP: `{ "regex": "^/v1/calls/", "flags": "i" }`. */
export interface SerializedRegExp {
	regex: string;
	flags?: string;
}

export type SerializedFault = Omit<Fault, 'path'> & { path?: string | SerializedRegExp };

/** Makes a fault JSON-safe (RegExp paths become { regex, flags }). */
export function serializeFault(fault: Fault): SerializedFault {
	if ('path' in fault && fault.path instanceof RegExp) {
		return {
			...fault,
			path: { regex: fault.path.source, flags: fault.path.flags },
		} as SerializedFault;
	}
	return fault as SerializedFault;
}

/** Accepts a fault from JSON and checks it; throws a readable error when it makes no sense. */
export function parseFault(input: unknown): Fault {
	if (!input || typeof input !== 'object') throw new Error('fault must be an object');
	const f = { ...(input as Record<string, unknown>) };
	const path = f.path as unknown;
	if (path && typeof path === 'object' && !(path instanceof RegExp)) {
		const { regex, flags } = path as SerializedRegExp;
		if (typeof regex !== 'string') throw new Error('fault path object needs a "regex" string');
		f.path = new RegExp(regex, flags ?? '');
	} else if (path !== undefined && typeof path !== 'string' && !(path instanceof RegExp)) {
		throw new Error('fault path must be a string, a RegExp or { regex, flags }');
	}
	if (
		f.count !== undefined &&
		!(Number.isInteger(f.count) && (f.count as number) > 0) &&
		f.count !== Infinity
	) {
		throw new Error('fault count must be a positive integer');
	}
	if (f.origin !== undefined && f.origin !== 'api' && f.origin !== 'files') {
		throw new Error("fault origin must be 'api' or 'files'");
	}
	switch (f.kind) {
		case 'status':
			if (!Number.isInteger(f.status) || (f.status as number) < 100 || (f.status as number) > 599) {
				throw new Error('status fault needs an HTTP status between 100 and 599');
			}
			break;
		case 'reset':
			if (f.when !== 'before-body' && f.when !== 'after-body') {
				throw new Error("reset fault needs when: 'before-body' or 'after-body'");
			}
			break;
		case 'hang':
		case 'truncate':
		case 'expire-signed-urls':
			break;
		default:
			throw new Error(`unknown fault kind: ${String(f.kind)}`);
	}
	return f as unknown as Fault;
}

function pathMatches(matcher: PathMatcher | undefined, path: string): boolean {
	if (matcher === undefined) return true;
	if (matcher instanceof RegExp) {
		matcher.lastIndex = 0; // a /g or /y RegExp would otherwise remember the previous match
		return matcher.test(path);
	}
	return matcher.endsWith('/') ? path.startsWith(matcher) : path === matcher;
}

export class FaultQueue {
	private queue: QueuedFault[] = [];
	private expired = false;

	get signedUrlsExpired(): boolean {
		return this.expired;
	}

	inject(input: Fault): void {
		const fault = parseFault(input);
		if (fault.kind === 'expire-signed-urls') this.expired = true;
		else this.queue.push({ fault, remaining: fault.count ?? 1 });
	}

	clear(): void {
		this.queue = [];
		this.expired = false;
	}

	/** Faults still waiting for a request (for the state route). */
	pending(): Array<{ fault: SerializedFault; remaining: number | null }> {
		return this.queue.map(({ fault, remaining }) => ({
			fault: serializeFault(fault),
			remaining: Number.isFinite(remaining) ? remaining : null,
		}));
	}

	/** Takes (and uses up once) the first fault matching this request, if any. */
	take(origin: Origin, method: string, path: string): Fault | undefined {
		const index = this.queue.findIndex(({ fault }) => {
			if (fault.kind === 'truncate') {
				return origin === 'files' && method === 'GET' && pathMatches(fault.path, path);
			}
			return (
				(fault.origin === undefined || fault.origin === origin) &&
				(fault.method === undefined || fault.method.toUpperCase() === method) &&
				pathMatches(fault.path, path)
			);
		});
		if (index < 0) return undefined;
		const entry = this.queue[index];
		if (--entry.remaining <= 0) this.queue.splice(index, 1);
		return entry.fault;
	}
}

/** The answer to a 'status' fault: a gateway-style error page or a deliberately broken body. */
export function statusFaultReply(fault: Extract<Fault, { kind: 'status' }>): Reply {
	const body = fault.body ?? JSON.stringify({ detail: reasonPhrase(fault.status) });
	const contentType =
		fault.contentType ??
		(body.trimStart().startsWith('<') ? 'text/html; charset=utf-8' : 'application/json');
	const headers: Record<string, string> = { 'Content-Type': contentType, ...fault.headers };
	if (fault.retryAfter !== undefined) headers['Retry-After'] = fault.retryAfter;
	return { status: fault.status, headers, body };
}
