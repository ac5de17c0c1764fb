/** Errors built from the API's answers: each says what the service said and what to do. */
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ApiResponse } from '../transport/response';
import { RETRY_POLICY } from '../transport/retryPolicy';
import { REFUSED_FIELDS, VALIDATION_DETAILS, isValidationIssue } from './details';
import { duration } from './duration';
import { failureOf } from './failure';

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

/** `["body", "phone_e164"]` -> `phone_e164`; the request part prefix says nothing to a user. */
function apiFieldOf(loc: Array<string | number>): string {
	const parts = ['body', 'query', 'path', 'header'].includes(String(loc[0])) ? loc.slice(1) : loc;
	return parts.length === 0 ? String(loc[0] ?? 'request') : parts.join('.');
}

/** `["body", "phone_e164"]` -> `Phone`: the editor's label when the field has one. */
function fieldOf(loc: Array<string | number>, labels: Record<string, string> = {}): string {
	const name = apiFieldOf(loc);
	return labels[name] ?? name;
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
			? issues
					.map((issue) => `${fieldOf(issue.loc, operation.fieldLabels)}: ${issue.msg}`)
					.join('; ')
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
		message: `The API rejected the ${subject} (422): ${summary}. Fix it on this item and run it again`,
		description,
		httpCode: '422',
	});
	error.context[VALIDATION_DETAILS] = (issues.length > 0 ? issues : detail) as JsonObject[];
	// Only fields the editor shows: a user fixes those on the item.
	const labels = operation.fieldLabels ?? {};
	const refused = issues.map((issue) => labels[apiFieldOf(issue.loc)]).filter(Boolean);
	if (refused.length > 0) error.context[REFUSED_FIELDS] = [...new Set(refused)];
	return error;
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
	const saidText = said ? `: ${said}` : '';
	let message: string;
	const description = said ? `The server said: ${said}` : undefined;
	if (statusCode === 401) {
		message =
			'API key missing or invalid (401): paste a valid key into the credential; the old one may have been revoked';
	} else if (statusCode === 403) {
		message = `The API key lacks the scope ${scope} needed to ${action} (403): create a key with that scope in the desktop app (Settings › Developers) and paste it into the credential`;
	} else if (statusCode === 404) {
		message = `Not found (404)${saidText}. Check the credential's Base URL`;
	} else if ((statusCode >= 500 || statusCode === 408) && askedWaitMs !== undefined) {
		message = `The API is temporarily unavailable (${statusCode}) and asks to retry in ${duration(askedWaitMs)}, longer than the ${duration(RETRY_POLICY.maxServerErrorRetryAfterMs)} the node waits: run it again after that time`;
	} else if (statusCode >= 500 || statusCode === 408) {
		const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
		message = `The API is temporarily unavailable (${statusCode}) and still failed after ${tries}: run it again later, or raise Max Retries`;
	} else if (statusCode >= 300 && statusCode < 400) {
		message = `The API answered with an unexpected redirect (${statusCode}): check the credential's Base URL`;
	} else {
		message = `The API refused the request (${statusCode})${saidText}`;
	}
	return new NodeApiError(node, { status: statusCode } as JsonObject, {
		message,
		description,
		httpCode: String(statusCode),
		failure: failureOf(statusCode, askedWaitMs),
	});
}

/** The 429 asked for a wait beyond the item's Max Rate-Limit Wait. */
export function rateLimitError(node: INode, waitedMs: number, askedMs: number): NodeApiError {
	return new NodeApiError(node, { status: 429 } as JsonObject, {
		message: `Rate limit still exceeded (429) after waiting ${duration(waitedMs)}; the service asks for another ${duration(askedMs)}, more than Max Rate-Limit Wait allows: lower the credential's Requests per Minute, or raise Max Rate-Limit Wait`,
		description:
			"Another app may be using the same API key, or the credential's Requests per Minute is higher than the key's real limit.",
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
		message: `The API key has no requests left for another ${duration(waitMs)}, as the service says; Max Rate-Limit Wait allows ${duration(allowedMs)}: run the workflow again after that time, or raise Max Rate-Limit Wait`,
		description: "The key's limit for a longer period (an hour or a day) is used up.",
		httpCode: '429',
		failure: failureOf(429, waitMs),
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
