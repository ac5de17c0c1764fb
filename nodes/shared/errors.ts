/**
 * The one place for errors: every error the nodes raise is built here (HTTP answers, network
 * failures, settings, 422 details, fields checked before sending), and only this file reads
 * what an error carries (its status, its 422 details). Errors are recognised by shape, not
 * `instanceof`: n8n 1.x and 2.x may load another copy of n8n-workflow, whose classes are not ours.
 */
import type { Failure, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ApiResponse } from './transport/response';
import { RETRY_POLICY, isRetryableStatus } from './transport/retryPolicy';

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
}

/** One entry of a 422 `HTTPValidationError.detail` array. */
interface ValidationIssue {
	loc: Array<string | number>;
	msg: string;
	type: string;
	[key: string]: unknown;
}

/** What the nodes throw: every failure ends as one of these, built below. */
export type NodeError = NodeApiError | NodeOperationError;

/** Where a 422 detail array travels to the error item (`json.message.details`, see the router). */
const VALIDATION_DETAILS = 'validationDetails';

function isValidationIssue(value: unknown): value is ValidationIssue {
	return (
		typeof value === 'object' &&
		value !== null &&
		Array.isArray((value as ValidationIssue).loc) &&
		typeof (value as ValidationIssue).msg === 'string'
	);
}

/** `["body", "phone_e164"]` -> `phone_e164`; the request part prefix says nothing to a user. */
function fieldOf(loc: Array<string | number>): string {
	const parts = ['body', 'query', 'path', 'header'].includes(String(loc[0])) ? loc.slice(1) : loc;
	return parts.length === 0 ? String(loc[0] ?? 'request') : parts.join('.');
}

/** A short, safe summary of what the server said (never more than 300 characters). */
export function serverMessage(response: ApiResponse): string | undefined {
	const body = response.body as JsonObject | undefined;
	if (body && typeof body === 'object' && !Array.isArray(body)) {
		for (const key of ['detail', 'message', 'error', 'error_description', 'title']) {
			const value = body[key];
			if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, 300);
			if (value && typeof value === 'object' && typeof (value as JsonObject).message === 'string') {
				return String((value as JsonObject).message).slice(0, 300);
			}
		}
	}
	const text = response.text?.trim();
	if (!text) return undefined;
	if (/^<(!doctype|html)/i.test(text))
		return 'the server answered with an HTML page instead of JSON';
	return text.replace(/\s+/g, ' ').slice(0, 300);
}

function validationError(
	node: INode,
	response: ApiResponse,
	operation: ApiOperation,
): NodeApiError {
	const detail = (response.body as { detail?: unknown } | undefined)?.detail;
	const issues = Array.isArray(detail) ? detail.filter(isValidationIssue) : [];
	const subject = operation.subject ?? 'request';
	const summary =
		issues.length > 0
			? issues.map((issue) => `${fieldOf(issue.loc)}: ${issue.msg}`).join('; ')
			: (serverMessage(response) ?? 'no details given');
	const description =
		issues.length > 0
			? issues
					.map(
						(issue) =>
							`- loc: ${issue.loc.join('.')} | msg: ${issue.msg} | type: ${String(issue.type)}`,
					)
					.join('\n')
			: undefined;
	const error = new NodeApiError(node, { status: 422 } as JsonObject, {
		message: `The API rejected the ${subject} (422): ${summary}`,
		description,
		httpCode: '422',
	});
	error.context[VALIDATION_DETAILS] = (issues.length > 0 ? issues : detail) as JsonObject[];
	return error;
}

/**
 * A problem found in one input field before anything was sent; it carries the same details as
 * the API's own 422, so both read alike on the error output.
 */
export function fieldError(
	node: INode,
	itemIndex: number,
	field: { apiName: string; label: string },
	problem: string,
): NodeOperationError {
	const error = new NodeOperationError(node, `${field.apiName}: ${problem}`, {
		itemIndex,
		description: `Check the ${field.label} field. Nothing was sent to the API for this item.`,
	});
	error.context[VALIDATION_DETAILS] = [
		{ loc: ['body', field.apiName], msg: problem, type: 'value_error' },
	];
	return error;
}

/**
 * Why a request failed, declared on the error (n8n-workflow's `errors/failure`): n8n 2.x's poll
 * scheduler backs a failing trigger off by it (a revoked key is not polled every minute). n8n
 * 1.x's errors take no such option and ignore it.
 */
function failureOf(statusCode: number | undefined, askedWaitMs?: number): Failure | undefined {
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
 * Maps a final error response to an error that says what to do. `askedWaitMs`: the server's
 * Retry-After on a transient failure, when longer than the node waits.
 */
export function errorFromResponse(
	node: INode,
	response: ApiResponse,
	operation: ApiOperation,
	attempts: number,
	askedWaitMs?: number,
): NodeApiError {
	const { statusCode } = response;
	if (statusCode === 422) return validationError(node, response, operation);

	const said = serverMessage(response);
	const { scope, action } = operation;
	let message: string;
	let description = said ? `The server said: ${said}` : undefined;
	if (statusCode === 401) {
		message = 'API key missing or invalid (401)';
		description =
			`Check the API key in the credential; it may have been revoked. ${description ?? ''}`.trim();
	} else if (statusCode === 403) {
		message = `The API key lacks the scope ${scope} needed to ${action} (403)`;
		description =
			`Add the ${scope} scope to the key in the desktop app (Settings > Developers) or use a key that has it. ${description ?? ''}`.trim();
	} else if (statusCode === 404) {
		message = `Not found (404)${said ? `: ${said}` : ''}`;
	} else if ((statusCode >= 500 || statusCode === 408) && askedWaitMs !== undefined) {
		message = `The API is temporarily unavailable (${statusCode}) and asks to retry in ${seconds(askedWaitMs)}, longer than the ${seconds(RETRY_POLICY.maxServerErrorRetryAfterMs)} the node waits after a server error`;
		description = `Try again after that time. ${description ?? ''}`.trim();
	} else if (statusCode >= 500 || statusCode === 408) {
		const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
		message = `The API is temporarily unavailable (${statusCode}) and still failed after ${tries}`;
		description = `Try again later. ${description ?? ''}`.trim();
	} else if (statusCode >= 300 && statusCode < 400) {
		message = `The API answered with an unexpected redirect (${statusCode})`;
	} else {
		message = `The API refused the request (${statusCode})${said ? `: ${said}` : ''}`;
	}
	return new NodeApiError(node, { status: statusCode } as JsonObject, {
		message,
		description,
		httpCode: String(statusCode),
		failure: failureOf(statusCode, askedWaitMs),
	});
}

/** `3600000` -> `3600 s` */
const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** The 429 asked for a wait beyond the item's Max Rate-Limit Wait. */
export function rateLimitError(node: INode, waitedMs: number, askedMs: number): NodeApiError {
	return new NodeApiError(node, { status: 429 } as JsonObject, {
		message: `Rate limit still exceeded (429) after waiting ${seconds(waitedMs)}; the server asks for another ${seconds(askedMs)}, more than the Max Rate-Limit Wait option allows`,
		description:
			"Another client may be using the same API key, or the credential's Requests per Minute is higher than the key's real limit. Lower it, or raise Max Rate-Limit Wait.",
		httpCode: '429',
		failure: failureOf(429, askedMs),
	});
}

/**
 * The key's count, as the API states it, is spent for longer than the item may wait (a daily
 * quota, say): failed at once rather than held for hours.
 */
export function spentKeyError(node: INode, waitMs: number, allowedMs: number): NodeApiError {
	return new NodeApiError(node, { status: 429 } as JsonObject, {
		message: `The API key has no requests left for another ${seconds(waitMs)}, as the API's rate-limit headers say; that is more than the Max Rate-Limit Wait option allows (${seconds(allowedMs)})`,
		description:
			'The key\'s limit for a longer period (an hour or a day) is spent. Run the workflow again after that time, or raise Max Rate-Limit Wait to wait for it.',
		httpCode: '429',
		failure: failureOf(429, waitMs),
	});
}

/** The code of a failure without an HTTP answer (ECONNRESET, ETIMEDOUT...; UNKNOWN if none). */
export function networkErrorCode(error: unknown): string {
	const cause = (error as { cause?: unknown }).cause ?? error;
	const { code, message } = cause as { code?: string; message?: string };
	if (code) return code;
	const text = String(message ?? '');
	if (/timeout/i.test(text)) return 'ETIMEDOUT';
	return /socket hang up|aborted/i.test(text) ? 'ECONNRESET' : 'UNKNOWN';
}

export function describeNetworkFailure(code: string, origin: string, timeoutMs: number): string {
	if (code === 'ETIMEDOUT' || code === 'ECONNABORTED' || code === 'ESOCKETTIMEDOUT') {
		return `The API at ${origin} did not answer within ${Math.round(timeoutMs / 1000)} s`;
	}
	if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_BAD_RESPONSE') {
		return `The connection to the API at ${origin} was reset`;
	}
	if (code === 'ECONNREFUSED') return `Nothing is listening at ${origin} (connection refused)`;
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return `The host of ${origin} could not be found`;
	return `Could not reach the API at ${origin} (${code})`;
}

/** No HTTP answer, after `attempts` tries. */
export function networkError(
	node: INode,
	code: string,
	origin: string,
	timeoutMs: number,
	attempts: number,
): NodeApiError {
	const tries = attempts === 1 ? '' : ` (${attempts} attempts)`;
	// A fresh error: the original one carries request options, which hold the key.
	// No `code` in the payload: n8n would replace our message with a generic one.
	const message = `${describeNetworkFailure(code, origin, timeoutMs)}${tries}`;
	return new NodeApiError(node, { message } as JsonObject, {
		message,
		description: 'Check the Base URL and that the service is reachable, then try again.',
		failure: failureOf(undefined),
	});
}

/** The file host's answer (or its silence) ended a download; `httpCode`: its status, if any. */
export function downloadError(
	node: INode,
	message: string,
	description?: string,
	httpCode?: number,
): NodeApiError {
	return new NodeApiError(node, { status: httpCode ?? 0 } as JsonObject, {
		message,
		description,
		httpCode: httpCode === undefined ? undefined : String(httpCode),
		// The file host is down or overloaded (its 429 included): a wait can help.
		failure:
			httpCode === undefined || httpCode === 429 || isRetryableStatus(httpCode)
				? failureOf(undefined)
				: undefined,
	});
}

/** The API answered, but not with what was asked for (a recording that is not there). */
export function answerError(
	node: INode,
	httpCode: number,
	message: string,
	options: { description?: string; itemIndex?: number },
): NodeApiError {
	return new NodeApiError(node, { status: httpCode } as JsonObject, {
		...options,
		message,
		httpCode: String(httpCode),
	});
}

/**
 * A problem found by the node itself: a parameter, an unreadable answer, a cancelled run.
 * `cause`: the error behind it, kept on the node error for n8n's logs.
 */
export function operationError(
	node: INode,
	message: string,
	options: { description?: string; itemIndex?: number; cause?: Error } = {},
): NodeOperationError {
	const { cause, ...shown } = options;
	if (cause === undefined) return new NodeOperationError(node, message, shown);
	return new NodeOperationError(node, cause, { ...shown, message });
}

/** The credential's settings cannot be used; n8n 2.x stops polling on a broken credential. */
export function settingsError(node: INode, message: string): NodeOperationError {
	return new NodeOperationError(node, message, {
		level: 'warning',
		failure: { cause: 'credential-invalid' },
	});
}

function isNodeError(error: unknown): error is NodeError {
	return error instanceof Error && 'context' in error;
}

/**
 * Any failure as the node error n8n shows, naming its item when known: a node error as it is,
 * any other error with its message (and its `description`, if it has one).
 */
export function toNodeError(node: INode, error: unknown, itemIndex?: number): NodeError {
	if (isNodeError(error)) {
		if (itemIndex !== undefined) error.context.itemIndex ??= itemIndex;
		return error;
	}
	const { description } = error as { description?: unknown };
	if (error instanceof Error && typeof description === 'string') {
		return new NodeOperationError(node, error.message, { description, itemIndex });
	}
	return new NodeOperationError(node, error as Error, { itemIndex });
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
