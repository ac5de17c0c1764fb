import type { Failure, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ApiResponse } from './response';
import { RETRY_POLICY } from './retryPolicy';

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
export interface ValidationIssue {
	loc: Array<string | number>;
	msg: string;
	type: string;
	[key: string]: unknown;
}

/** Where a 422 detail array travels to the error item (`json.message.details`, see the router). */
export const VALIDATION_DETAILS = 'validationDetails';

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
