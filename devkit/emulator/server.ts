/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- dev code, not in the package n8n loads: node rules do not apply */
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
import { handleFileRequest } from './file-host';
import * as http from './http';
import { importLead, LeadStore } from './leads';
import { ResolvedOptions, resolveFiles, resolveOptions, resolveProcessing } from './options';
import { RateLimiter } from './rate-limit';
import { getRecording, UrlSigner } from './recordings';
import { Recorder } from './recorder';
import type * as T from './types';

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
	private readonly api = createServer((req, res) => void this.onApi(req, res));
	private readonly fileHost = createServer((req, res) => void this.onFile(req, res));

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

	addCalls(n: number, overrides?: Partial<T.CallRecord>): T.CallRecord[] {
		const { delayMs } = this.processing;
		return this.callStore.add(n, overrides, delayMs > 0 ? Date.now() + delayMs : 0);
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

	private async onApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://emulator');
		const method = req.method ?? 'GET';
		const query = http.queryRecord(url.searchParams);
		try {
			if (url.pathname.startsWith(CONTROL_PREFIX)) {
				const route = `${method} ${url.pathname.slice(CONTROL_PREFIX.length - 1)}`;
				return http.sendReply(res, handleControl(this, route, query, await http.readBody(req)));
			}
			const record = this.recorder.begin('api', req, url.pathname, query);
			const fault = this.faults.take('api', method, url.pathname);
			if (fault) record.fault = fault.kind;
			if (fault?.kind === 'reset' && fault.when === 'before-body') {
				this.recorder.finish(record, 'reset');
				return http.resetSocket(req);
			}
			record.body = await http.readBody(req);
			if (fault?.kind === 'hang') return this.recorder.finish(record, 'hang');
			const reply =
				fault?.kind === 'status' ? statusFaultReply(fault) : this.route(req, url, record.body);
			if (fault?.kind === 'reset') {
				// after-body: the request was fully processed (a lead really was upserted); only the
				// answer is lost, which is exactly when a client must retry an idempotent call safely.
				this.recorder.finish(record, 'reset');
				return http.resetSocket(req);
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

	private async onFile(req: IncomingMessage, res: ServerResponse): Promise<void> {
		try {
			await handleFileRequest(this, req, res);
		} catch (error) {
			http.internalError(res, error);
		}
	}
}

export async function startEmulator(options: T.EmulatorOptions = {}): Promise<T.Emulator> {
	const emulator = new EmulatorServer(resolveOptions(options));
	await emulator.start();
	return emulator;
}
