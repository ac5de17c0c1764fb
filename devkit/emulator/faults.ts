/**
 * Fault injection. Faults sit in a FIFO queue; each request takes the first queued fault that
 * matches it (kind, origin, method, path) and spends one of its `count` uses. Control routes are
 * never affected. 'expire-signed-urls' is a switch rather than a queued fault: it stays on until
 * clearFaults()/reset().
 */
import { reasonPhrase, Reply } from './http';
import { Fault, PathMatcher } from './types';

type Queued = Exclude<Fault, { kind: 'expire-signed-urls' }>;

/** A fault as sent over HTTP: a RegExp path becomes `{ "regex": "^/v1/calls/", "flags": "i" }`. */
export type SerializedFault = Omit<Fault, 'path'> & {
	path?: string | { regex: string; flags?: string };
};

export function serializeFault(fault: Fault): SerializedFault {
	const path = 'path' in fault ? fault.path : undefined;
	return path instanceof RegExp
		? { ...fault, path: { regex: path.source, flags: path.flags } }
		: (fault as SerializedFault);
}

const check = (ok: boolean, message: string): void => {
	if (!ok) throw new Error(message);
};

/** Accepts a fault from JSON and checks it; throws a readable error when it makes no sense. */
export function parseFault(input: unknown): Fault {
	check(!!input && typeof input === 'object', 'fault must be an object');
	const f = { ...(input as Record<string, unknown>) };
	const path = f.path as { regex?: unknown; flags?: string } | undefined;
	if (path && typeof path === 'object' && !(path instanceof RegExp)) {
		check(typeof path.regex === 'string', 'fault path object needs a "regex" string');
		f.path = new RegExp(path.regex as string, path.flags ?? '');
	} else {
		const ok = path === undefined || typeof path === 'string' || path instanceof RegExp;
		check(ok, 'fault path must be a string, a RegExp or { regex, flags }');
	}
	const count = f.count as number | undefined;
	const countOk =
		count === undefined || count === Infinity || (Number.isInteger(count) && count > 0);
	check(countOk, 'fault count must be a positive integer');
	check(
		[undefined, 'api', 'files'].includes(f.origin as string),
		"fault origin must be 'api' or 'files'",
	);
	const status = f.status as number;
	if (f.kind === 'status')
		check(
			Number.isInteger(status) && status >= 100 && status <= 599,
			'status fault needs an HTTP status between 100 and 599',
		);
	else if (f.kind === 'reset')
		check(
			['before-body', 'after-body'].includes(f.when as string),
			"reset fault needs when: 'before-body' or 'after-body'",
		);
	else
		check(
			['hang', 'truncate', 'expire-signed-urls'].includes(f.kind as string),
			`unknown fault kind: ${String(f.kind)}`,
		);
	return f as unknown as Fault;
}

function pathMatches(matcher: PathMatcher | undefined, path: string): boolean {
	if (matcher === undefined) return true;
	if (typeof matcher === 'string')
		return matcher.endsWith('/') ? path.startsWith(matcher) : path === matcher;
	matcher.lastIndex = 0; // a /g or /y RegExp would otherwise remember the previous match
	return matcher.test(path);
}

export class FaultQueue {
	private queue: Array<{ fault: Queued; remaining: number }> = [];
	signedUrlsExpired = false;

	inject(input: Fault): void {
		const fault = parseFault(input);
		if (fault.kind === 'expire-signed-urls') this.signedUrlsExpired = true;
		else this.queue.push({ fault, remaining: fault.count ?? 1 });
	}

	clear(): void {
		this.queue = [];
		this.signedUrlsExpired = false;
	}

	/** Faults still waiting for a request (for the state route). */
	pending(): Array<{ fault: SerializedFault; remaining: number | null }> {
		return this.queue.map(({ fault, remaining }) => ({
			fault: serializeFault(fault),
			remaining: Number.isFinite(remaining) ? remaining : null,
		}));
	}

	/** Takes (and uses up once) the first fault matching this request, if any. */
	take(origin: 'api' | 'files', method: string, path: string): Queued | undefined {
		const index = this.queue.findIndex(({ fault }) =>
			fault.kind === 'truncate'
				? origin === 'files' && method === 'GET' && pathMatches(fault.path, path)
				: (fault.origin ?? origin) === origin &&
					(fault.method ?? method).toUpperCase() === method &&
					pathMatches(fault.path, path),
		);
		const entry = this.queue[index];
		if (entry && --entry.remaining <= 0) this.queue.splice(index, 1);
		return entry?.fault;
	}
}

/** The answer to a 'status' fault: a gateway-style error page or a deliberately broken body. */
export function statusFaultReply(fault: Extract<Fault, { kind: 'status' }>): Reply {
	const body = fault.body ?? JSON.stringify({ detail: reasonPhrase(fault.status) });
	const html = body.trimStart().startsWith('<');
	const headers: Record<string, string> = {
		'Content-Type': fault.contentType ?? (html ? 'text/html; charset=utf-8' : 'application/json'),
		...fault.headers,
	};
	if (fault.retryAfter !== undefined) headers['Retry-After'] = fault.retryAfter;
	return { status: fault.status, headers, body };
}
