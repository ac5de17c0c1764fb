/**
 * What an error carries beyond its message (its HTTP status, its field problems, its declared
 * failure cause), read only here, and the error output's item made from it. Errors are
 * recognised by shape, not `instanceof`: n8n 1.x and 2.x may load another copy of n8n-workflow,
 * whose classes are not ours.
 */
import type {
	Failure,
	IDataObject,
	INodeExecutionData,
	JsonObject,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

/** What the nodes throw: every failure ends as one of these. */
export type NodeError = NodeApiError | NodeOperationError;

/** Where a 422 detail array travels to the error item (`json.message.details`, see `errorItem`). */
export const VALIDATION_DETAILS = 'validationDetails';

/**
 * The editor labels of the input fields whose values were refused (`json.message.fields`, see
 * `errorItem` below): by the node before sending, or by the service's 422. What an IF node
 * routes on.
 */
export const REFUSED_FIELDS = 'refusedFields';

/** One entry of a 422 `HTTPValidationError.detail` array. */
export interface ValidationIssue {
	loc: Array<string | number>;
	msg: string;
	type: string;
	[key: string]: unknown;
}

export function isValidationIssue(value: unknown): value is ValidationIssue {
	return (
		typeof value === 'object' &&
		value !== null &&
		Array.isArray((value as ValidationIssue).loc) &&
		typeof (value as ValidationIssue).msg === 'string'
	);
}

export function isNodeError(error: unknown): error is NodeError {
	return error instanceof Error && 'context' in error;
}

/** The HTTP status on an error (`"404"`); undefined when no answer caused it. */
export function statusOf(error: unknown): string | undefined {
	if (!isNodeError(error)) return undefined;
	const { httpCode } = error as { httpCode?: unknown };
	return httpCode ? String(httpCode) : undefined;
}

/** The API no longer accepts a request it gave earlier (an expired cursor or page link). */
export function isStale(error: unknown): boolean {
	return ['400', '404', '410'].includes(statusOf(error) ?? '');
}

/** The field problems of a 422 (or of a field checked before sending), as the API lists them. */
export function validationDetailsOf(error: unknown): JsonObject[] | undefined {
	if (!isNodeError(error)) return undefined;
	const details = error.context[VALIDATION_DETAILS];
	return details === undefined ? undefined : (details as JsonObject[]);
}

/** The labels of the fields whose values were refused (["Phone"]); undefined when none was. */
export function refusedFieldsOf(error: unknown): string[] | undefined {
	if (!isNodeError(error)) return undefined;
	const fields = error.context[REFUSED_FIELDS];
	return Array.isArray(fields) && fields.length > 0 ? fields.map(String) : undefined;
}

/**
 * The item an error belongs to, in the one shape every supported n8n routes to the error output:
 * 1.x moves an item there only when its json is exactly `{ error }` or `{ error, message }`
 * (2.x also allows `details`), and an item carrying the node error itself (`item.error`) has
 * its json replaced by `{ error: message }` on both lines, losing the fields below. So:
 * `error` is the message, `message` holds what an IF node or a person needs beyond it:
 * `httpCode` (only API answers have one), `fields` (the labels of the fields whose values were
 * refused, before sending or by the service) and `details` (every field problem, as a 422 lists them).
 */
export function errorItem(error: NodeError, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	const more: IDataObject = {};
	const httpCode = statusOf(error);
	if (httpCode) more.httpCode = httpCode;
	const fields = refusedFieldsOf(error);
	if (fields !== undefined) more.fields = fields;
	const details = validationDetailsOf(error);
	if (details !== undefined) more.details = details as IDataObject[];
	if (Object.keys(more).length > 0) json.message = more;
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * Why a request failed, declared on the error (n8n-workflow's `errors/failure`): n8n 2.x's poll
 * scheduler backs a failing trigger off by it (a revoked key is not polled every minute). n8n
 * 1.x's errors take no such option and ignore it.
 */
export function failureOf(
	statusCode: number | undefined,
	askedWaitMs?: number,
): Failure | undefined {
	const wait = askedWaitMs === undefined ? {} : { retryAfterMs: askedWaitMs };
	if (statusCode === 429) return { cause: 'rate-limited', ...wait };
	if (statusCode === 401) return { cause: 'credential-invalid' };
	if (statusCode === 403) return { cause: 'configuration-invalid' };
	// No answer at all (network), or a transient server failure.
	if (statusCode === undefined || statusCode === 408 || statusCode >= 500) {
		return { cause: 'temporarily-unavailable', ...wait };
	}
	return undefined;
}

/**
 * A wait or a timeout as a person reads it: seconds up to two minutes, then minutes, from an
 * hour on hours ("45 seconds", "12 minutes", "1 hour", "3 hours 20 minutes"), never "3600 s".
 */
export function duration(ms: number): string {
	const seconds = Math.max(0, Math.round(ms / 1000));
	if (seconds < 120) return plural(seconds, 'second');
	const minutes = Math.round(seconds / 60);
	if (minutes < 60) return plural(minutes, 'minute');
	const hours = Math.floor(minutes / 60);
	const rest = minutes % 60;
	return rest === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} ${plural(rest, 'minute')}`;
}

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

// What the errors of requests are built from.

/** An answer as the errors read it (the transport's `ApiResponse` is one). */
export interface ServerAnswer {
	statusCode: number;
	/** Parsed JSON body, when it was JSON. */
	body?: unknown;
	/** The body as text when it was not JSON. */
	text?: string;
}

/** Why a request gave up, as transport/retry.ts decided: what its error words. */
export interface GaveUp {
	attempts: number;
	/**
	 * The server asked for a wait the policy does not grant: a 429's beyond Max Rate-Limit Wait,
	 * a transient failure's beyond the longest Retry-After the node honours (`allowedWaitMs`).
	 */
	askedWaitMs?: number;
	allowedWaitMs?: number;
	/** What the request had already waited on 429s. */
	rateLimitWaitedMs?: number;
}

/**
 * What a request is for, in the words its errors use. Each operation declares its own (an
 * action in its `*.operation.ts`, a request both nodes send next to that request), and
 * sends it with the request: no table here to keep in step.
 */
export interface ApiOperation {
	/** The key scope the API checks for this request, e.g. `calls:read`. */
	scope: string;
	/** What the scope is needed for: "The API key lacks the scope calls:read needed to list calls". */
	action: string;
	/** What a 422 rejected: "The API rejected the lead (422)". Default: request. */
	subject?: string;
	/** The editor's label of each body field, by its API name: a 422 names "Phone", not `phone_e164`. */
	fieldLabels?: Record<string, string>;
}
