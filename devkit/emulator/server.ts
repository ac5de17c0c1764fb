/* eslint-disable @n8n/community-nodes/no-restricted-imports -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * Wires the pieces into two HTTP servers: the API origin (/v1 routes + /__emulator/ control
 * routes) and the file origin (signed recordings). Request pipeline on the API origin, in the
 * order a FastAPI service behind a gateway would apply it:
 *
 *   record -> injected fault (gateway-level: before auth, not rate-limited) -> route (404/405)
 *   -> auth (401) -> scope (403) -> rate limit (429) -> handler (422/201/200/404)
 */
import { createServer, IncomingMessage, ServerResponse } from 'http';
import { authorize } from './auth';
import { CallStore } from './calls';
import { listCalls } from './calls-list';
import { CONTROL_PREFIX, handleControl } from './control';
import { FaultQueue, statusFaultReply } from './faults';
import { checkFile, serveFile } from './file-host';
import * as http from './http';
import { importLead, LeadStore } from './leads';
import { ResolvedOptions, resolveFiles, resolveOptions, resolveProcessing } from './options';
import { RateLimiter } from './rate-limit';
import { getRecording, UrlSigner } from './recordings';
import type * as T from './types';

/**
 * Request log and counters. Counters are always kept (benchmarks read them after 10 000
 * requests); the full log only when recordRequests is on, since it holds every header and body.
 */
type Origin = 'api' | 'files';

export class Recorder {
	readonly requests: T.RecordedRequest[] = [];
	readonly fileRequests: T.RecordedRequest[] = [];
	private counts = { api: 0, files: 0 };
	private byStatus: Record<Origin, Record<string, number>> = { api: {}, files: {} };

	constructor(private readonly keepLog: boolean) {}

	/** Called on arrival, so the log is in arrival order even when answers finish out of order. */
	begin(origin: Origin, req: IncomingMessage, path: string, query: Record<string, string>) {
		const record: T.RecordedRequest = {
			origin,
			method: req.method ?? 'GET',
			path,
			query,
			// Copying headers is wasted work when the log is off (10 000-request benchmark runs).
			headers: this.keepLog ? { ...req.headers } : {},
			body: '',
			status: 'hang', // replaced by finish(); stays 'hang' for a request never answered
			at: Date.now(),
		};
		this.counts[origin]++;
		if (this.keepLog) (origin === 'api' ? this.requests : this.fileRequests).push(record);
		return record;
	}

	finish(
		record: T.RecordedRequest,
		status: T.RecordedRequest['status'],
		answerHeaders?: object,
	): void {
		record.status = status;
		if (this.keepLog && answerHeaders)
			record.answerHeaders = answerHeaders as Record<string, string>;
		const counts = this.byStatus[record.origin];
		counts[status] = (counts[status] ?? 0) + 1;
	}

	stats(leads: number): T.EmulatorStats {
		const { api, files } = this.byStatus;
		return {
			requests: this.counts.api,
			byStatus: { ...api },
			leads,
			fileRequests: this.counts.files,
			fileByStatus: { ...files },
		};
	}

	clear(): void {
		// Emptied in place: callers may hold a reference to the arrays.
		this.requests.length = 0;
		this.fileRequests.length = 0;
		this.counts = { api: 0, files: 0 };
		this.byStatus = { api: {}, files: {} };
	}
}

export class EmulatorServer implements T.Emulator {
	baseUrl = '';
	fileBaseUrl = '';
	readonly limiter: RateLimiter;
	readonly faults = new FaultQueue();
	readonly recorder: Recorder;
	readonly requests;
	readonly fileRequests;
	private readonly leadStore = new LeadStore();
	readonly leads = this.leadStore.leads;
	readonly callStore = new CallStore();
	readonly signer = new UrlSigner();
	processing: T.RecordingProcessing;
	files: T.RecordingFiles;
	private readonly api = createServer(
		(req, res) =>
			void this.serve('api', req, res, (url, query, body) =>
				// Relative recording links point at the API origin, which then serves the files.
				this.files.recordingUrlForm === 'relative' && url.pathname.startsWith('/recordings/')
					? checkFile(req, query, url.pathname, this)
					: this.route(req, url, body),
			),
	);
	private readonly fileHost = createServer(
		(req, res) =>
			void this.serve('files', req, res, (url, query) => checkFile(req, query, url.pathname, this)),
	);

	constructor(readonly opts: ResolvedOptions) {
		this.limiter = new RateLimiter(opts.rateLimit);
		this.recorder = new Recorder(opts.recordRequests);
		this.requests = this.recorder.requests;
		this.fileRequests = this.recorder.fileRequests;
		this.processing = opts.recordingProcessing;
		this.files = opts.recordingFiles;
		this.callStore.seed(opts.seedCalls);
	}

	async start(): Promise<void> {
		const { host } = this.opts;
		this.baseUrl = http.originUrl(host, await http.listen(this.api, this.opts.port, host));
		this.fileBaseUrl = http.originUrl(
			host,
			await http.listen(this.fileHost, this.opts.fileHostPort, host),
		);
	}

	get calls(): T.CallRecord[] {
		return this.callStore.calls;
	}

	inject(fault: T.Fault): void {
		this.faults.inject(fault);
	}

	clearFaults(): void {
		this.faults.clear();
	}

	setRateLimit(cfg: T.RateLimitConfig | false): void {
		this.limiter.configure(cfg);
	}

	setRecordingProcessing(change: Partial<T.RecordingProcessing>): T.RecordingProcessing {
		return (this.processing = resolveProcessing(this.processing, change));
	}

	setRecordingFiles(change: Partial<T.RecordingFiles>): T.RecordingFiles {
		return (this.files = resolveFiles(this.files, change));
	}

	addCalls(
		n: number,
		overrides?: Partial<T.CallRecord>,
		placement?: { listedLate?: boolean },
	): T.CallRecord[] {
		const { delayMs } = this.processing;
		const readyAt = delayMs > 0 ? Date.now() + delayMs : 0;
		return this.callStore.add(n, overrides, readyAt, placement?.listedLate === true);
	}

	stats() {
		return this.recorder.stats(this.leads.size);
	}

	reset(): void {
		this.recorder.clear();
		this.leadStore.clear();
		this.faults.clear();
		this.limiter.reset();
		this.processing = this.opts.recordingProcessing;
		this.files = this.opts.recordingFiles;
		this.callStore.seed(this.opts.seedCalls);
	}

	async stop(): Promise<void> {
		await Promise.all([http.close(this.api), http.close(this.fileHost)]);
	}

	/**
	 * One request on either origin: recorded, then an injected fault or the origin's answer (a
	 * reply, or on the file origin the call whose file to stream).
	 */
	private async serve(
		origin: 'api' | 'files',
		req: IncomingMessage,
		res: ServerResponse,
		answer: (url: URL, query: Record<string, string>, body: string) => http.Reply | string,
	): Promise<void> {
		try {
			const url = new URL(req.url ?? '/', 'http://emulator');
			const query = http.queryRecord(url.searchParams);
			if (origin === 'api' && url.pathname.startsWith(CONTROL_PREFIX)) {
				const route = `${req.method} ${url.pathname.slice(CONTROL_PREFIX.length - 1)}`;
				return http.sendReply(res, handleControl(this, route, query, await http.readBody(req)));
			}
			const record = this.recorder.begin(origin, req, url.pathname, query);
			const fault = this.faults.take(origin, record.method, url.pathname);
			if (fault) record.fault = fault.kind;
			const reset = (): void => {
				this.recorder.finish(record, 'reset');
				http.resetSocket(req);
			};
			// The file origin resets before the body whatever `when` says.
			if (fault?.kind === 'reset' && (origin === 'files' || fault.when === 'before-body'))
				return reset();
			record.body = await http.readBody(req);
			if (fault?.kind === 'hang') return this.recorder.finish(record, 'hang');
			const reply =
				fault?.kind === 'status' ? statusFaultReply(fault) : answer(url, query, record.body);
			// after-body: the request was fully processed (a lead really was upserted); only the
			// answer is lost, which is exactly when a client must retry an idempotent call safely.
			if (fault?.kind === 'reset') return reset();
			if (typeof reply === 'string') {
				// Told as soon as the headers go out, so a test sees it while a long body still streams.
				this.recorder.finish(record, 200);
				return await serveFile(req, res, reply, this, fault?.kind === 'truncate');
			}
			http.sendReply(res, reply);
			this.recorder.finish(record, reply.status, reply.headers);
		} catch (error) {
			http.internalError(res, error);
		}
	}

	private route(req: IncomingMessage, url: URL, body: string): http.Reply {
		const callId = /^\/v1\/calls\/([^/]+)\/recording$/.exec(url.pathname)?.[1];
		const { headers } = req;
		const routes: Record<string, [string, T.Scope, () => http.Reply]> = {
			'/v1/leads': [
				'POST',
				'leads:write',
				() => importLead(this.leadStore, body, headers['content-type'], this.opts.strictPhone),
			],
			'/v1/calls': [
				'GET',
				'calls:read',
				() => listCalls(this.callStore, url, headers.host, this.opts),
			],
			recording: ['GET', 'recordings:read', () => getRecording(this, callId!)],
		};
		const found = routes[callId === undefined ? url.pathname : 'recording'];
		if (!found) return http.detail(404, 'Not Found');
		const [allowed, scope, handler] = found;
		if (req.method !== allowed) return http.detail(405, 'Method Not Allowed', { Allow: allowed });
		const key = authorize(this.opts.keys, req.headers.authorization, scope);
		if (typeof key !== 'string') return key;
		const decision = this.limiter.take(key);
		if (!decision.ok) {
			const retryAfter = String(decision.retryAfterSeconds);
			return http.detail(429, 'Rate limit exceeded', {
				...decision.headers,
				'Retry-After': retryAfter,
			});
		}
		const reply = handler();
		return { ...reply, headers: { ...reply.headers, ...decision.headers } };
	}
}

export async function startEmulator(options: T.EmulatorOptions = {}): Promise<T.Emulator> {
	const emulator = new EmulatorServer(resolveOptions(options));
	await emulator.start();
	return emulator;
}
