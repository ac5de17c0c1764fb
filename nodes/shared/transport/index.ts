import type { ICredentialsDecrypted, IDataObject, IHttpRequestOptions, INode } from 'n8n-workflow';

import type { RequestContext } from '../context';
import type { ConnectionSettings } from '../connection';
import { ConnectionSettingsError, parseConnectionSettings } from '../connection';
import type { ApiOperation } from '../errors';
import {
	gaveUpError,
	networkErrorCode,
	operationError,
	settingsError,
	spentKeyError,
	toNodeError,
} from '../errors';
import type { RateBudget } from './rateLimit';
import { budgetForKey } from './rateLimit';
import { readRateLimitHeaders } from './rateLimitHeaders';
import type { RequestPolicy } from './retry';
import { DEFAULT_REQUEST_POLICY, pause, retrying } from './retry';

export type { ApiOperation } from '../errors';
export { pause } from './retry';
export type { RequestPolicy } from './retry';

export const CREDENTIAL_TYPE = 'leadCallAccessApi';

/** An API answer as the transport hands it on: status, headers, and the body parsed once. */
export interface ApiResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	/** Parsed JSON body; undefined when the body was empty or not JSON. */
	body: unknown;
	/** The body as text when it was not valid JSON (HTML error pages, truncated JSON...). */
	text?: string;
	/** The raw bytes, for operations whose body may be binary. */
	raw: Buffer;
}

function headerValue(headers: ApiResponse['headers'], name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
}

function toApiResponse(
	raw: { statusCode: number; headers: Record<string, unknown>; body: unknown },
	apiKey: string,
): ApiResponse {
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
	// A server may quote the key back ("Invalid API key pf_live_…"): it never reaches an error
	// message or an output item.
	const text = buffer.toString('utf8').split(apiKey).join('[API key]');
	try {
		response.body = JSON.parse(text);
	} catch {
		response.text = text;
	}
	return response;
}

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
	/** Error statuses the caller reads as answers (a recording's 404), returned instead of thrown. */
	answerStatuses?: readonly number[];
}

interface ContextCredential {
	settings: ConnectionSettings;
	/**
	 * Handed back to n8n with every request: otherwise n8n reads and decrypts the credential
	 * from its database again for each one, which cost about 1 ms of CPU per request and made
	 * send times jitter by tens of ms (enough for a 429 from a token bucket with burst 1).
	 */
	decrypted: ICredentialsDecrypted;
}

const credentialByContext = new WeakMap<RequestContext, Promise<ContextCredential>>();

/** Reads and validates the credential once per node run. */
async function getContextCredential(this: RequestContext): Promise<ContextCredential> {
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
		if (error instanceof ConnectionSettingsError)
			throw settingsError(this.getNode(), error.message);
		throw toNodeError(this.getNode(), error);
	}
}

export async function getConnectionSettings(this: RequestContext): Promise<ConnectionSettings> {
	return (await getContextCredential.call(this)).settings;
}

export function resolveUrl(settings: ConnectionSettings, request: ApiRequest, node: INode): string {
	if (request.url === undefined) return `${settings.apiBase}${request.path ?? ''}`;
	const target = new URL(request.url, `${settings.apiBase}/`);
	// Behind a proxy that ends TLS, services (Django REST Framework, Laravel) write their links
	// with http://: on the Base URL's own host, that link is the Base URL's address over https.
	if (target.protocol === 'http:' && `https://${target.host}` === settings.origin)
		target.protocol = 'https:';
	// A "next page" link elsewhere would receive our key: never follow it. A service reached by
	// another name than its own (localhost for 127.0.0.1, say) writes its links with its own.
	if (target.origin !== settings.origin) {
		const base = `${target.origin}${settings.apiBase.slice(settings.origin.length)}`;
		throw operationError(
			node,
			`Refused to follow a link to ${target.origin}: the API key is only sent to the credential's Base URL (${settings.origin}). If ${target.origin} is the service's own address, the one it uses in its links, set the credential's Base URL to ${base}`,
		);
	}
	return target.toString();
}

/**
 * One attempt within the key's budget: waits for its turn, sends, and tells the budget how it
 * went. Returns the answer, or the code of the failure that left none.
 */
async function attempt(
	this: RequestContext,
	budget: RateBudget,
	options: IHttpRequestOptions,
	{ settings, decrypted }: ContextCredential,
	rateLimitWaitLeftMs: number,
	waitsEndBy = Infinity,
): Promise<ApiResponse | { networkErrorCode: string }> {
	const departOrWait = () => budget.departOrWait(Date.now());
	let departure = departOrWait();
	for (; typeof departure === 'number'; departure = departOrWait()) {
		// Held for hours by a spent daily quota, the item would look stuck: it fails at once,
		// as a 429 asking for that wait would. So does a wait past the end the caller set.
		const allowedMs = Math.min(
			Math.max(budget.turnWaitsAtMostMs, rateLimitWaitLeftMs),
			waitsEndBy - Date.now(),
		);
		if (departure > allowedMs) throw spentKeyError(this.getNode(), departure, allowedMs);
		await pause.call(this, departure);
	}
	try {
		const answer = toApiResponse(
			await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				{ ...options },
				{ credentialsDecrypted: decrypted },
			),
			settings.apiKey,
		);
		const answeredAt = Date.now();
		budget.settle(departure, answeredAt, {
			rateLimited: answer.statusCode === 429,
			stated: readRateLimitHeaders(answer.headers, answeredAt),
		});
		return answer;
	} catch (error) {
		budget.settle(departure, Date.now());
		// The credential refused to attach the key (see its `authenticate`).
		const refusal = [error, (error as Error).cause].find(
			(e) => e instanceof ConnectionSettingsError,
		);
		if (refusal) throw operationError(this.getNode(), (refusal as Error).message);
		return { networkErrorCode: networkErrorCode(error) };
	}
}

function requestOptions(
	url: string,
	request: ApiRequest,
	policy: RequestPolicy,
): IHttpRequestOptions {
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
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
	return options;
}

/**
 * Sends one API request with authentication, the key's rate budget and the retry policy
 * (transport/retry.ts: a 429 holds the key's budget until its wait is over), and returns the
 * final 2xx answer, or another the caller reads as one (a redirect, a recording's 404). Every
 * other outcome becomes an error that names the cause.
 */
export async function apiRequest(
	this: RequestContext,
	request: ApiRequest,
	policy: RequestPolicy = DEFAULT_REQUEST_POLICY,
): Promise<ApiResponse> {
	const node = this.getNode();
	const credential = await getContextCredential.call(this);
	const { settings } = credential;
	const budget = budgetForKey(settings.apiKey, settings);
	const options = requestOptions(resolveUrl(settings, request, node), request, policy);
	const accepts = (status: number) =>
		(request.acceptRedirect === true && status >= 300 && status < 400) ||
		(request.answerStatuses?.includes(status) ?? false);
	const { outcome, gaveUp } = await retrying(
		this,
		async (waitLeftMs) => {
			const { waitsEndBy } = policy;
			const answer = await attempt.call(this, budget, options, credential, waitLeftMs, waitsEndBy);
			return 'raw' in answer ? { ...answer, accepted: accepts(answer.statusCode) } : answer;
		},
		policy,
		(untilMs) => budget.pauseUntil(untilMs),
	);
	if (gaveUp === undefined) return outcome as ApiResponse;
	const about = {
		operation: request.operation,
		origin: settings.origin,
		timeoutMs: policy.timeoutMs,
	};
	throw gaveUpError(node, outcome, gaveUp, about);
}
