/** Errors without an answer from the API (the network), and failed recording downloads. */
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { isRetryableStatus } from '../transport/retryPolicy';
import { duration } from './duration';
import { failureOf } from './failure';

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
