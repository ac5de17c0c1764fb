import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type { ConnectionSettings } from './connection';
import { ConnectionSettingsError, parseConnectionSettings } from './connection';
import type { ApiOperation, ApiResponse } from './errors';
import { errorFromResponse } from './errors';
import { pacerForKey } from './pacer';
import {
	RETRY_POLICY,
	backoffDelayMs,
	isRetryableErrorCode,
	isRetryableStatus,
	parseRetryAfter,
} from './retryPolicy';

export type { ApiOperation, ApiResponse } from './errors';

export const CREDENTIAL_TYPE = 'leadCallAccessApi';

/** The n8n contexts that call the API: the action node and the polling trigger. */
export type ApiContext = IExecuteFunctions | IPollFunctions;

export interface ApiRequest {
	operation: ApiOperation;
	method: 'GET' | 'POST';
	/** Path under the base URL, e.g. `/v1/leads`; or `url` for an absolute URL on the same origin. */
	path?: string;
	url?: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** Return 3xx answers instead of failing (a recording may be served as a redirect). */
	acceptRedirect?: boolean;
}

/** Per-request limits, set from the node's "Options". */
export interface RequestPolicy {
	timeoutMs: number;
	maxRetries: number;
	maxRateLimitWaitMs: number;
}

export const DEFAULT_REQUEST_POLICY: RequestPolicy = {
	timeoutMs: RETRY_POLICY.defaultTimeoutMs,
	maxRetries: RETRY_POLICY.defaultMaxRetries,
	maxRateLimitWaitMs: RETRY_POLICY.defaultMaxRateLimitWaitMs,
};

interface ContextCredential {
	settings: ConnectionSettings;
	/**
	 * Handed back to n8n with every request: otherwise n8n reads and decrypts the credential
	 * from its database again for each one, which cost about 1 ms of CPU per request and made
	 * send times jitter by tens of ms (enough for a 429 from a token bucket with burst 1).
	 */
	decrypted: ICredentialsDecrypted;
}

const credentialByContext = new WeakMap<ApiContext, Promise<ContextCredential>>();

/** Reads and validates the credential once per node run. */
async function getContextCredential(this: ApiContext): Promise<ContextCredential> {
	let credential = credentialByContext.get(this);
	if (credential === undefined) {
		const reference = this.getNode().credentials?.[CREDENTIAL_TYPE];
		credential = this.getCredentials(CREDENTIAL_TYPE).then((data) => ({
			settings: parseConnectionSettings(data),
			decrypted: {
				id: reference?.id ?? '',
				name: reference?.name ?? '',
				type: CREDENTIAL_TYPE,
				data,
			},
		}));
		credentialByContext.set(this, credential);
	}
	try {
		return await credential;
	} catch (error) {
		if (error instanceof ConnectionSettingsError) {
			throw new NodeOperationError(this.getNode(), error.message, { level: 'warning' });
		}
		throw new NodeOperationError(this.getNode(), error as Error);
	}
}

export async function getConnectionSettings(this: ApiContext): Promise<ConnectionSettings> {
	return (await getContextCredential.call(this)).settings;
}

/** Waits, in short steps so that a cancelled execution stops waiting promptly. */
export async function pause(this: ApiContext, ms: number): Promise<void> {
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const until = Date.now() + ms;
	for (let left = ms; left > 0; left = until - Date.now()) {
		if (signal?.aborted)
			throw new NodeOperationError(this.getNode(), 'The execution was cancelled');
		await sleep(Math.min(left, 1000));
	}
}

function headerValue(headers: ApiResponse['headers'], name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
}

function toApiResponse(raw: {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}): ApiResponse {
	const buffer = Buffer.isBuffer(raw.body)
		? raw.body
		: raw.body instanceof ArrayBuffer
			? Buffer.from(raw.body)
			: Buffer.from(typeof raw.body === 'string' ? raw.body : '');
	const headers: ApiResponse['headers'] = {};
	for (const [name, value] of Object.entries(raw.headers ?? {})) {
		headers[name.toLowerCase()] = value as string | string[] | undefined;
	}
	const response: ApiResponse = {
		statusCode: raw.statusCode,
		headers,
		body: undefined,
		raw: buffer,
	};
	const contentType = headerValue(headers, 'content-type') ?? '';
	const isBinary = /^(audio|video|image)\/|application\/octet-stream/i.test(contentType);
	if (buffer.length === 0 || isBinary) return response;
	const text = buffer.toString('utf8');
	try {
		response.body = JSON.parse(text);
	} catch {
		response.text = text;
	}
	return response;
}

/** Network-level failure: no HTTP answer at all. */
export function networkFailure(error: unknown): { code: string; message: string } {
	const cause = (error as { cause?: unknown }).cause ?? error;
	const { code, message } = cause as { code?: string; message?: string };
	const text = String(message ?? '');
	const resolvedCode =
		code ??
		(/timeout/i.test(text)
			? 'ETIMEDOUT'
			: /socket hang up|aborted/i.test(text)
				? 'ECONNRESET'
				: 'UNKNOWN');
	return { code: resolvedCode, message: text };
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

function resolveUrl(settings: ConnectionSettings, request: ApiRequest, node: INode): string {
	if (request.url === undefined) return `${settings.apiBase}${request.path ?? ''}`;
	const target = new URL(request.url, `${settings.apiBase}/`);
	// A "next page" link elsewhere would receive our key: never follow it.
	if (target.origin !== settings.origin) {
		throw new NodeOperationError(
			node,
			`Refused to follow a link to ${target.origin}: the API key is only sent to the credential's Base URL (${settings.origin})`,
		);
	}
	return target.toString();
}

/**
 * Sends one API request with authentication, pacing and retries, and returns the final
 * 2xx response (or 3xx, when asked). Every other outcome becomes an error that names the cause.
 */
export async function apiRequest(
	this: ApiContext,
	request: ApiRequest,
	policy: RequestPolicy = DEFAULT_REQUEST_POLICY,
): Promise<ApiResponse> {
	const node = this.getNode();
	const { settings, decrypted } = await getContextCredential.call(this);
	const pacer = pacerForKey(settings.apiKey, settings.requestsPerMinute);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: resolveUrl(settings, request, node),
		qs: request.qs,
		headers: { Accept: 'application/json' },
		encoding: 'arraybuffer',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		timeout: policy.timeoutMs,
	};
	if (request.body !== undefined) {
		// Serialised here so the exact JSON sent is known (explicit nulls kept, nothing dropped).
		options.body = JSON.stringify(request.body);
		options.headers = { ...options.headers, 'Content-Type': 'application/json' };
	}

	let failedAttempts = 0;
	let rateLimitHits = 0;
	let rateLimitWaitedMs = 0;
	for (;;) {
		await pause.call(this, pacer.reserveSlot(Date.now()));
		await pause.call(this, pacer.depart(Date.now()));

		let response: ApiResponse;
		try {
			response = toApiResponse(
				await this.helpers.httpRequestWithAuthentication.call(
					this,
					CREDENTIAL_TYPE,
					{ ...options },
					{ credentialsDecrypted: decrypted },
				),
			);
		} catch (error) {
			if (
				error instanceof ConnectionSettingsError ||
				(error as Error).cause instanceof ConnectionSettingsError
			) {
				const cause =
					error instanceof ConnectionSettingsError ? error : ((error as Error).cause as Error);
				throw new NodeOperationError(node, cause.message);
			}
			const failure = networkFailure(error);
			failedAttempts++;
			const retryable = isRetryableErrorCode(failure.code) || failure.code === 'UNKNOWN';
			if (!retryable || failedAttempts > policy.maxRetries) {
				const tries = failedAttempts === 1 ? '' : ` (${failedAttempts} attempts)`;
				// A fresh error: the original one carries request options, which hold the key.
				// No `code` in the payload: n8n would replace our message with a generic one.
				const message = `${describeNetworkFailure(failure.code, settings.origin, policy.timeoutMs)}${tries}`;
				throw new NodeApiError(node, { message } as JsonObject, {
					message,
					description: 'Check the Base URL and that the service is reachable, then try again.',
				});
			}
			await pause.call(this, backoffDelayMs(failedAttempts));
			continue;
		}

		const { statusCode } = response;
		if (statusCode < 300 || (statusCode < 400 && request.acceptRedirect)) return response;

		const retryAfterMs = parseRetryAfter(response.headers['retry-after'], Date.now());
		if (statusCode === RETRY_POLICY.rateLimitStatusCode) {
			rateLimitHits++;
			// A floor, so "Retry-After: 0" answered again and again cannot become a request storm.
			const waitMs = Math.max(
				retryAfterMs ?? backoffDelayMs(rateLimitHits + 1),
				RETRY_POLICY.minRateLimitWaitMs,
			);
			if (rateLimitWaitedMs + waitMs > policy.maxRateLimitWaitMs) {
				throw new NodeApiError(node, { status: 429 } as JsonObject, {
					message: `Rate limit still exceeded (429) after waiting ${Math.round(rateLimitWaitedMs / 1000)} s; the server asks for another ${Math.round(waitMs / 1000)} s, more than the Max Rate-Limit Wait option allows`,
					description:
						"Another client may be using the same API key, or the credential's Requests per Minute is higher than the key's real limit. Lower it, or raise Max Rate-Limit Wait.",
					httpCode: '429',
				});
			}
			rateLimitWaitedMs += waitMs;
			pacer.pauseUntil(Date.now() + waitMs);
			continue;
		}

		if (statusCode < 400) throw errorFromResponse(node, response, request.operation, 1);
		if (isRetryableStatus(statusCode)) {
			failedAttempts++;
			if (failedAttempts <= policy.maxRetries) {
				const backoffMs = backoffDelayMs(failedAttempts);
				await pause.call(this, Math.min(retryAfterMs ?? backoffMs, policy.maxRateLimitWaitMs));
				continue;
			}
		}
		throw errorFromResponse(node, response, request.operation, failedAttempts || 1);
	}
}
