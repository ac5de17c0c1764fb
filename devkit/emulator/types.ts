/** Public types of the API emulator: a contract with the suites, changed only with them. */

export type Scope = 'leads:write' | 'calls:read' | 'recordings:read';

export interface ApiKey {
	key: string;
	scopes: Scope[];
}

export type RateLimitAlgorithm = 'sliding-log' | 'fixed-window' | 'token-bucket';

/**
 * Which header family states the key's budget on every rate-limited answer (2xx and 429):
 * X-RateLimit-* with Reset in seconds from now or as epoch seconds, RateLimit-* (earlier IETF
 * drafts), or RateLimit-Policy with RateLimit (current IETF draft). Reset is when Remaining next
 * goes up: the window's end (fixed window), when the oldest counted request leaves the window
 * (sliding log), when the next token comes (token bucket).
 */
export const RATE_LIMIT_HEADER_STYLES = [
	'x-ratelimit-delta',
	'x-ratelimit-epoch',
	'ratelimit',
	'ietf',
] as const;
export type RateLimitHeaderStyle = (typeof RATE_LIMIT_HEADER_STYLES)[number];

/**
 * How a stated Reset is rounded to whole seconds; the spec leaves it open. 'up' (default) is never
 * early; 'down' (`Math.floor`, common in hand-written limiters) states a reset up to 1 s before
 * Remaining goes up, and 0 s while it is still 0; 'nearest' is up to half a second early or late.
 * Retry-After is always rounded up.
 */
export type ResetRounding = 'up' | 'down' | 'nearest';

export interface RateLimitConfig {
	limit: number;
	windowMs: number;
	/** Default 'sliding-log'. */
	algorithm?: RateLimitAlgorithm;
	/** Token bucket capacity; default = limit. */
	burst?: number;
	/** Default: none (the spec shows no rate-limit headers). */
	headers?: RateLimitHeaderStyle;
	/** Default 'up'. */
	resetRounding?: ResetRounding;
}

export type PaginationStyle =
	| 'data-next_cursor' // { data: [...], next_cursor: string | null }
	| 'items-nextCursor' // { items: [...], nextCursor: string | null }
	| 'calls-next-token' // { calls: [...], next: string | null } (token)
	| 'results-next-url' // { results: [...], next: absolute URL | null } (DRF-like)
	| 'array-link-header' // top-level array + `Link: <url>; rel="next"` when there is more
	| 'data-page' // { data: [...], page, pages, total }, next page by `page=N`
	// Conventions that lists of other services follow (README: "Calls"):
	| 'data-has_more' // Stripe: { object: 'list', data, has_more }, next by `starting_after=<id>`
	| 'items-next-query' // { items, next: '?cursor=…&limit=…' | null }: a query-only link
	| 'data-current_page' // Laravel: { current_page, data, last_page, next_page_url, … }, `page=N`
	| 'data-next_page_url' // Laravel's simplePaginate: as above without last_page nor total
	| 'array-skip'; // FastAPI's tutorial: top-level array, `skip` and `limit`, no hint at all

/** Every cursor style, for suites that run once per style. */
export const PAGINATION_STYLES: readonly PaginationStyle[] = [
	'data-next_cursor',
	'items-nextCursor',
	'calls-next-token',
	'results-next-url',
	'array-link-header',
	'data-has_more',
	'items-next-query',
];

/** Page numbers: kept out of PAGINATION_STYLES, whose suites expect stable cursors. */
export const PAGE_NUMBER_STYLE: PaginationStyle = 'data-page';

/** Positions that shift when calls arrive (page numbers, skip), as PAGE_NUMBER_STYLE. */
export const POSITIONAL_STYLES: readonly PaginationStyle[] = [
	PAGE_NUMBER_STYLE,
	'data-current_page',
	'data-next_page_url',
	'array-skip',
];

/**
 * What GET /v1/calls/{id}/recording answers while a recording is still being processed (the spec
 * leaves it open): '404' like a call without a recording, '202' Accepted with
 * `{ call_id, status: 'processing' }`, or 'processing': 200 with that body and `url: null`.
 */
export const PENDING_RECORDING_ANSWERS = ['404', '202', 'processing'] as const;
export type PendingRecordingAnswer = (typeof PENDING_RECORDING_ANSWERS)[number];

/** How long recordings of calls added from now on stay pending (default 0), answered how. */
export interface RecordingProcessing {
	delayMs: number;
	/** Default 'processing'. */
	pendingAnswer: PendingRecordingAnswer;
}

/**
 * How the file host names a recording (the spec shows no recording fields, and real hosts differ):
 * - 'by-call' (default): `/recordings/<call id>.mp3`, Content-Disposition `filename="<id>.mp3"`;
 * - 'same': every file has the same name, `/recordings/<call id>/recording.mp3` and
 *   `filename="recording.mp3"` (hosts that keep each file in a folder of its own);
 * - 'content': `/recordings/<call id>/content`, no Content-Disposition (a name without extension).
 */
export type RecordingFileNames = 'by-call' | 'same' | 'content';

/**
 * How a ready recording's answer gives its link (the spec shows no recording fields), set with
 * `setRecordingFiles` or `POST /__emulator/recording-files`:
 * - `recordingUrlField`: the link's field name (default 'url'; 'audio_url', or a name no node
 *   knows, such as 'media');
 * - `recordingUrlForm`: 'absolute' (default, on the file origin) or 'relative' (`/recordings/…`,
 *   which the API origin then serves with the file host's checks: signed, no Authorization);
 * - `recordingReadyStatus`: the answer's `status` (default 'completed'; 'ready', 'available'...).
 */
export interface RecordingLinks {
	recordingUrlField: string;
	recordingUrlForm: 'absolute' | 'relative';
	recordingReadyStatus: string;
}

/** How the file host serves recordings; changeable while running (`setRecordingFiles`). */
export interface RecordingFiles extends RecordingLinks {
	recordingFileNames: RecordingFileNames;
	/** Also the API's `content_type`; default 'audio/mpeg' ('application/octet-stream': S3's). */
	recordingContentType: string;
}

/** How GET /v1/calls orders calls: new calls at the front, or appended at the end. */
export type ListOrder = 'newest-first' | 'oldest-first';

/** Defaults: the DEMO_KEYS, 120 seeded calls, newest first, 50 a page, at most 100. */
export interface EmulatorOptions {
	keys?: ApiKey[];
	/** Default { limit: 60, windowMs: 60000, algorithm: 'sliding-log' }; false = unlimited. */
	rateLimit?: RateLimitConfig | false;
	seedCalls?: number;
	/** Default 'data-next_cursor'. */
	paginationStyle?: PaginationStyle;
	listOrder?: ListOrder;
	/**
	 * The field listed calls carry their creation time in (default 'created_at'). Any other
	 * name, or null for no time at all, also drops started_at and ended_at.
	 */
	callTimeField?: string | null;
	defaultPageSize?: number;
	maxPageSize?: number;
	/** What a `limit` above maxPageSize does: 'clamp' (default) or 'reject' (422 less_than_equal). */
	pageSizeOverflow?: 'clamp' | 'reject';
	/** Size of every recording file in bytes; default 32 KiB. Always streamed. */
	recordingBytes?: number;
	/** Recordings of added calls (seeded calls are always ready); default ready at once. */
	recordingProcessing?: Partial<RecordingProcessing>;
	recordingFileNames?: RecordingFileNames;
	recordingContentType?: string;
	/** Default true: phone_e164 must match ^\+[1-9]\d{1,14}$. */
	strictPhone?: boolean;
	/** Default true; false keeps only the counters of stats() (for 10k-request benchmarks). */
	recordRequests?: boolean;
	/** Default 127.0.0.1, random ports. */
	host?: string;
	port?: number;
	fileHostPort?: number;
}

export interface RecordedRequest {
	origin: 'api' | 'files';
	method: string;
	/** As sent (not URL-decoded). */
	path: string;
	query: Record<string, string>;
	headers: Record<string, string | string[] | undefined>;
	body: string;
	status: number | 'reset' | 'hang';
	/** At arrival (epoch ms). */
	at: number;
	/** Set when an injected fault decided (or damaged) the answer. */
	fault?: Fault['kind'];
	/** The answer's headers, when it was sent (to see what a rate-limited key was told). */
	answerHeaders?: Record<string, string>;
}

/** A string matches the exact path, or every path below it when it ends in '/'. */
export type PathMatcher = string | RegExp;

interface FaultTarget {
	count?: number;
	path?: PathMatcher;
	method?: string;
	/** Without it, the fault matches requests on both origins. */
	origin?: 'api' | 'files';
}

/** Faults are consumed FIFO: each request takes the first queued fault that matches it. */
export type Fault =
	| (FaultTarget & {
			kind: 'status';
			status: number;
			/** Sent verbatim as the Retry-After header. */
			retryAfter?: string;
			/** More headers, sent verbatim (a rate-limit count the limiter would not state). */
			headers?: Record<string, string>;
			/** Default: {"detail":"<reason phrase>"}. */
			body?: string;
			/** Default: application/json, or text/html when the body starts with '<'. */
			contentType?: string;
	  })
	| (FaultTarget & { kind: 'reset'; when: 'before-body' | 'after-body' })
	| (FaultTarget & { kind: 'hang' })
	| { kind: 'truncate'; count?: number; path?: PathMatcher }
	| { kind: 'expire-signed-urls' };

export type StoredLead = Record<
	'name' | 'campaign_id' | 'contact_type' | 'legal_basis',
	string | null
> & {
	id: string;
	phone_e164: string;
	created_at: string;
	updated_at: string;
	/** How many accepted imports wrote this lead (1 = created, never updated). Not sent by the API. */
	writes: number;
};

export interface CallRecord {
	id: string;
	created_at: string;
	started_at: string;
	ended_at: string;
	duration_seconds: number;
	direction: 'inbound' | 'outbound';
	from_e164: string;
	to_e164: string;
	status: 'completed' | 'missed' | 'voicemail';
	lead_id: string | null;
	has_recording: boolean;
}

export interface EmulatorStats {
	/** API-origin requests (control routes excluded), counted even when recordRequests is false. */
	requests: number;
	/** API-origin answers by status: '201', '429', 'reset', 'hang', ... */
	byStatus: Record<string, number>;
	leads: number;
	fileRequests: number;
	fileByStatus: Record<string, number>;
}

export interface Emulator {
	/** http://127.0.0.1:<port>, no trailing slash; fileBaseUrl serves the signed recordings. */
	baseUrl: string;
	fileBaseUrl: string;
	/** In arrival order. */
	readonly requests: RecordedRequest[];
	readonly fileRequests: RecordedRequest[];
	/** By phone_e164. */
	readonly leads: Map<string, StoredLead>;
	/** Newest first. */
	readonly calls: CallRecord[];
	inject(fault: Fault): void;
	clearFaults(): void;
	/** Also resets the limiter state. */
	setRateLimit(cfg: RateLimitConfig | false): void;
	setRecordingProcessing(processing: Partial<RecordingProcessing>): RecordingProcessing;
	setRecordingFiles(files: Partial<RecordingFiles>): RecordingFiles;
	/**
	 * New calls become the newest (front of the list); returned newest first, like `calls`.
	 * `listedLate`: each goes where its `created_at` sorts instead, after the calls of the same
	 * time: a call stamped when it started but listed when it ended, after later, shorter calls.
	 */
	addCalls(
		n: number,
		overrides?: Partial<CallRecord>,
		placement?: { listedLate?: boolean },
	): CallRecord[];
	stats(): EmulatorStats;
	/** Clears requests, leads, faults and limiter state, and re-seeds the calls. */
	reset(): void;
	/** Closes both servers and destroys open sockets, hung ones included. */
	stop(): Promise<void>;
}
