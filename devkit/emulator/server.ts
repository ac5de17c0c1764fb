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
import { KeyStore } from './auth';
import { CallStore } from './calls';
import { listCalls, ListOptions } from './calls-list';
import { CONTROL_PREFIX, ControlTarget, handleControl } from './control';
import { FaultQueue, statusFaultReply } from './faults';
import { handleFileRequest } from './file-host';
import {
	BodyTooLargeError,
	close,
	detail,
	internalError,
	listen,
	originUrl,
	queryRecord,
	readBody,
	Reply,
	resetSocket,
	sendReply,
} from './http';
import { importLead, LeadStore } from './leads';
import { ResolvedOptions, resolveFiles, resolveOptions, resolveProcessing } from './options';
import { RateLimiter } from './rate-limit';
import { getRecording, UrlSigner } from './recordings';
import { Recorder } from './recorder';
import {
	CallRecord,
	Emulator,
	EmulatorOptions,
	EmulatorStats,
	Fault,
	RateLimitConfig,
	RecordedRequest,
	RecordingFiles,
	RecordingProcessing,
	Scope,
	StoredLead,
} from './types';

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const RECORDING_PATH = /^\/v1\/calls\/([^/]+)\/recording$/;

class EmulatorServer implements ControlTarget {
	baseUrl = '';
	fileBaseUrl = '';
	private readonly api = createServer((req, res) => void this.onApi(req, res));
	private readonly files = createServer((req, res) => void this.onFile(req, res));
	private readonly keys: KeyStore;
	private readonly limiter: RateLimiter;
	private readonly faults = new FaultQueue();
	private readonly recorder: Recorder;
	private readonly leadStore = new LeadStore();
	private readonly callStore = new CallStore();
	private readonly signer = new UrlSigner();
	private readonly listOptions: ListOptions;
	private processing: RecordingProcessing;
	private fileSettings: RecordingFiles;

	constructor(private readonly opts: ResolvedOptions) {
		this.keys = new KeyStore(opts.keys);
		this.limiter = new RateLimiter(opts.rateLimit);
		this.recorder = new Recorder(opts.recordRequests);
		this.listOptions = {
			style: opts.paginationStyle,
			order: opts.listOrder,
			timeField: opts.callTimeField,
			defaultPageSize: opts.defaultPageSize,
			maxPageSize: opts.maxPageSize,
			pageSizeOverflow: opts.pageSizeOverflow,
		};
		this.processing = opts.recordingProcessing;
		this.fileSettings = opts.recordingFiles;
		this.callStore.seed(opts.seedCalls);
	}

	async start(): Promise<void> {
		const apiPort = await listen(this.api, this.opts.port, this.opts.host);
		const filePort = await listen(this.files, this.opts.fileHostPort, this.opts.host);
		this.baseUrl = originUrl(this.opts.host, apiPort);
		this.fileBaseUrl = originUrl(this.opts.host, filePort);
	}

	// ---- Emulator interface -------------------------------------------------------------------

	get requests(): RecordedRequest[] {
		return this.recorder.requests;
	}

	get fileRequests(): RecordedRequest[] {
		return this.recorder.fileRequests;
	}

	get leads(): Map<string, StoredLead> {
		return this.leadStore.leads;
	}

	get calls(): CallRecord[] {
		return this.callStore.calls;
	}

	inject(fault: Fault): void {
		this.faults.inject(fault);
	}

	clearFaults(): void {
		this.faults.clear();
	}

	pendingFaults(): ReturnType<FaultQueue['pending']> {
		return this.faults.pending();
	}

	setRateLimit(cfg: RateLimitConfig | false): void {
		this.limiter.configure(cfg);
	}

	rateLimit(): RateLimitConfig | false {
		return this.limiter.config;
	}

	setRecordingProcessing(change: Partial<RecordingProcessing>): RecordingProcessing {
		this.processing = resolveProcessing(this.processing, change);
		return this.processing;
	}

	recordingProcessing(): RecordingProcessing {
		return this.processing;
	}

	setRecordingFiles(change: Partial<RecordingFiles>): RecordingFiles {
		this.fileSettings = resolveFiles(this.fileSettings, change);
		return this.fileSettings;
	}

	recordingFiles(): RecordingFiles {
		return this.fileSettings;
	}

	addCalls(n: number, overrides?: Partial<CallRecord>): CallRecord[] {
		const { delayMs } = this.processing;
		return this.callStore.add(n, overrides, delayMs > 0 ? Date.now() + delayMs : 0);
	}

	stats(): EmulatorStats {
		return this.recorder.stats(this.leadStore.leads.size);
	}

	reset(): void {
		this.recorder.clear();
		this.leadStore.clear();
		this.faults.clear();
		this.limiter.reset();
		this.processing = this.opts.recordingProcessing;
		this.fileSettings = this.opts.recordingFiles;
		this.callStore.seed(this.opts.seedCalls);
	}

	async stop(): Promise<void> {
		await Promise.all([close(this.api), close(this.files)]);
	}

	// ---- API origin ---------------------------------------------------------------------------

	private async onApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://emulator');
		const method = req.method ?? 'GET';
		const query = queryRecord(url.searchParams);
		try {
			if (url.pathname.startsWith(CONTROL_PREFIX)) {
				const body = await readBody(req, MAX_BODY_BYTES);
				sendReply(res, handleControl(this, method, url.pathname, query, body));
				return;
			}
			const record = this.recorder.begin('api', req, url.pathname, query);
			const fault = this.faults.take('api', method, url.pathname);
			if (fault) record.fault = fault.kind;
			if (fault?.kind === 'reset' && fault.when === 'before-body') {
				this.recorder.finish(record, 'reset');
				resetSocket(req);
				return;
			}

			let reply: Reply;
			try {
				record.body = await readBody(req, MAX_BODY_BYTES);
				if (fault?.kind === 'hang') return this.recorder.finish(record, 'hang');
				reply =
					fault?.kind === 'status'
						? statusFaultReply(fault)
						: this.route(req, url, method, query, record.body);
			} catch (error) {
				if (!(error instanceof BodyTooLargeError)) throw error;
				reply = detail(413, 'Request body too large');
			}

			if (fault?.kind === 'reset') {
				// after-body: the request was fully processed (a lead really was upserted); only the
				// answer is lost, which is exactly when a client must retry an idempotent call safely.
				this.recorder.finish(record, 'reset');
				resetSocket(req);
				return;
			}
			sendReply(res, reply, method === 'HEAD');
			this.recorder.finish(record, reply.status, reply.headers);
		} catch (error) {
			internalError(res, error);
		}
	}

	private route(
		req: IncomingMessage,
		url: URL,
		method: string,
		query: Record<string, string>,
		body: string,
	): Reply {
		const path = url.pathname;
		if (path === '/v1/leads') {
			if (method !== 'POST') return detail(405, 'Method Not Allowed', { Allow: 'POST' });
			return this.guarded(req, 'leads:write', () =>
				importLead(this.leadStore, body, req.headers['content-type'], this.opts.strictPhone),
			);
		}
		if (path === '/v1/calls') {
			if (method !== 'GET') return detail(405, 'Method Not Allowed', { Allow: 'GET' });
			const origin = req.headers.host ? `http://${req.headers.host}` : this.baseUrl;
			return this.guarded(req, 'calls:read', () =>
				listCalls(
					this.callStore,
					{ path, query, search: url.searchParams, origin },
					this.listOptions,
				),
			);
		}
		const recording = RECORDING_PATH.exec(path);
		if (recording) {
			if (method !== 'GET') return detail(405, 'Method Not Allowed', { Allow: 'GET' });
			return this.guarded(req, 'recordings:read', () =>
				getRecording(this.callStore, this.signer, recording[1], {
					fileBaseUrl: this.fileBaseUrl,
					ttlMs: this.opts.signedUrlTtlMs,
					sizeBytes: this.opts.recordingBytes,
					pendingAnswer: this.processing.pendingAnswer,
					files: this.fileSettings,
				}),
			);
		}
		return detail(404, 'Not Found');
	}

	/** Auth, scope and rate limit in front of a handler. */
	private guarded(req: IncomingMessage, scope: Scope, handler: () => Reply): Reply {
		const auth = this.keys.authorize(req.headers.authorization, scope);
		if (!auth.ok) return auth.reply;
		const decision = this.limiter.take(auth.key);
		if (!decision.ok) {
			return detail(429, 'Rate limit exceeded', {
				...decision.headers,
				'Retry-After': String(decision.retryAfterSeconds),
			});
		}
		const reply = handler();
		return { ...reply, headers: { ...reply.headers, ...decision.headers } };
	}

	// ---- File origin --------------------------------------------------------------------------

	private async onFile(req: IncomingMessage, res: ServerResponse): Promise<void> {
		try {
			await handleFileRequest(req, res, this.recorder, this.faults, {
				store: this.callStore,
				signer: this.signer,
				sizeBytes: this.opts.recordingBytes,
				files: this.fileSettings,
				signedUrlsExpired: () => this.faults.signedUrlsExpired,
			});
		} catch (error) {
			internalError(res, error);
		}
	}
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
	const emulator = new EmulatorServer(resolveOptions(options));
	await emulator.start();
	return emulator;
}
