/**
 * Errors of requests: the API's answers (each says what the service said and what to do),
 * requests that gave up (transport/retry.ts decided, these word it), network failures and
 * recording downloads.
 */
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ApiOperation, GaveUp, ServerAnswer } from './details';
import {
	REFUSED_FIELDS,
	VALIDATION_DETAILS,
	duration,
	failureOf,
	isValidationIssue,
} from './details';

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
export function serverMessage(response: ServerAnswer): string | undefined {
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
	response: ServerAnswer,
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

/** The message for an answer the request gave up on, by its status. */
function messageFor(
	statusCode: number,
	operation: ApiOperation,
	said: string | undefined,
	gaveUp: GaveUp,
) {
	const saidText = said ? `: ${said}` : '';
	const temporary = statusCode >= 500 || statusCode === 408;
	const { askedWaitMs, allowedWaitMs, attempts } = gaveUp;
	if (statusCode === 401) {
		return `API key missing or invalid (401)${saidText}. Paste a valid key into the credential; the old one may have been revoked`;
	}
	if (statusCode === 403) {
		return `The API key lacks the scope ${operation.scope} needed to ${operation.action} (403): create a key with that scope in the desktop app (Settings › Developers) and paste it into the credential`;
	}
	if (statusCode === 404) return `Not found (404)${saidText}. Check the credential's Base URL`;
	if (temporary && askedWaitMs !== undefined) {
		return `The API is temporarily unavailable (${statusCode}) and asks to retry in ${duration(askedWaitMs)}, longer than the ${duration(allowedWaitMs ?? 0)} the node waits: run it again after that time`;
	}
	if (temporary) {
		const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
		return `The API is temporarily unavailable (${statusCode}) and still failed after ${tries}: run it again later, or raise Max Retries`;
	}
	if (statusCode >= 300 && statusCode < 400) {
		return `The API answered with an unexpected redirect (${statusCode}): check the credential's Base URL`;
	}
	return `The API refused the request (${statusCode})${saidText}`;
}

/** Maps a final error answer to an error that says what to do. */
export function errorFromResponse(
	node: INode,
	response: ServerAnswer,
	operation: ApiOperation,
	gaveUp: GaveUp,
): NodeApiError {
	const { statusCode } = response;
	if (statusCode === 422) return validationError(node, response, operation);
	const said = serverMessage(response);
	return new NodeApiError(node, { status: statusCode } as JsonObject, {
		message: messageFor(statusCode, operation, said, gaveUp),
		description: said ? `The server said: ${said}` : undefined,
		httpCode: String(statusCode),
		failure: failureOf(statusCode, gaveUp.askedWaitMs),
	});
}

/**
 * The error for a request that gave up (transport/retry.ts decided it; this words it): no answer
 * at all, a 429 asking for more than Max Rate-Limit Wait, or any other final answer.
 */
export function gaveUpError(
	node: INode,
	outcome: ServerAnswer | { networkErrorCode: string },
	gaveUp: GaveUp,
	request: { operation: ApiOperation; origin: string; timeoutMs: number },
): NodeApiError {
	if ('networkErrorCode' in outcome) {
		const { networkErrorCode } = outcome;
		return networkError(node, networkErrorCode, request.origin, request.timeoutMs, gaveUp.attempts);
	}
	if (outcome.statusCode === 429 && gaveUp.askedWaitMs !== undefined) {
		return rateLimitError(node, gaveUp.rateLimitWaitedMs ?? 0, gaveUp.askedWaitMs);
	}
	return errorFromResponse(node, outcome, request.operation, gaveUp);
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

// Failures without an answer from the API (the network), and recording downloads.

/** The code of a failure without an HTTP answer (ECONNRESET, ETIMEDOUT...; UNKNOWN if none). */
export function networkErrorCode(error: unknown): string {
	const cause = (error as { cause?: unknown }).cause ?? error;
	const { code, message } = cause as { code?: string; message?: string };
	if (code) return code;
	const text = String(message ?? '');
	if (/timeout/i.test(text)) return 'ETIMEDOUT';
	return /socket hang up|aborted/i.test(text) ? 'ECONNRESET' : 'UNKNOWN';
}

const TIMED_OUT = ['ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT'];
const RESET = ['ECONNRESET', 'EPIPE', 'ERR_BAD_RESPONSE'];
const NOT_FOUND = ['ENOTFOUND', 'EAI_AGAIN'];

export function describeNetworkFailure(code: string, origin: string, timeoutMs: number): string {
	if (TIMED_OUT.includes(code)) {
		return `The API at ${origin} did not answer within ${duration(timeoutMs)}`;
	}
	if (RESET.includes(code)) return `The connection to the API at ${origin} was reset`;
	if (code === 'ECONNREFUSED') return `Nothing is listening at ${origin} (connection refused)`;
	if (NOT_FOUND.includes(code)) return `The host of ${origin} could not be found`;
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
	const message = `${describeNetworkFailure(code, origin, timeoutMs)}${tries}: check the credential's Base URL and that the service is up, then run it again`;
	return new NodeApiError(node, { message } as JsonObject, {
		message,
		failure: failureOf(undefined),
	});
}

/** A download that got no answer, in plain words: "the connection was reset". */
export function downloadFailure(code: string): string {
	if (TIMED_OUT.includes(code)) return 'the file host did not answer in time';
	if (RESET.includes(code)) return 'the connection was reset';
	if (code === 'ECONNREFUSED') return 'the file host refused the connection';
	if (NOT_FOUND.includes(code)) return 'the file host could not be found';
	return `a network error (${code})`;
}

/** What ended a download: no whole file (`failure`, in words), or the file host's status. */
export type DownloadEnd =
	{ failure: string } | { statusCode: number; hostSaid?: string; temporary: boolean };

/** A download that gave up after `attempts` tries, saying what to do. */
export function downloadError(node: INode, end: DownloadEnd, attempts: number): NodeApiError {
	const tries = attempts === 1 ? '' : ` (${attempts} attempts)`;
	const again = 'run it again later; the recording stays on the service';
	if ('failure' in end) {
		return new NodeApiError(node, { status: 0 } as JsonObject, {
			message: `${end.failure}${tries}: ${again}`,
			failure: failureOf(undefined),
		});
	}
	const { statusCode, hostSaid, temporary } = end;
	let message = `The recording's file host refused the download (${statusCode}): run it again; if it keeps failing, ask the service why`;
	if (statusCode === 403) {
		message = `The file host refused the recording's download link, even a fresh one (403): run it again later; if it keeps failing, ask the service why`;
	} else if (temporary) {
		message = `The recording's file host is unavailable (${statusCode})${tries}: ${again}`;
	}
	return new NodeApiError(node, { status: statusCode } as JsonObject, {
		message,
		description: hostSaid ? `The file host said: ${hostSaid}` : undefined,
		httpCode: String(statusCode),
		// The file host is down or overloaded (its 429 included): a wait can help.
		failure: temporary ? failureOf(undefined) : undefined,
	});
}
