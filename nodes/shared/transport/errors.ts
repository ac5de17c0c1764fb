import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

export type ApiOperation = 'importLead' | 'listCalls' | 'getRecording';

export const OPERATION_SCOPES: Record<ApiOperation, { scope: string; action: string }> = {
	importLead: { scope: 'leads:write', action: 'import leads' },
	listCalls: { scope: 'calls:read', action: 'list calls' },
	getRecording: { scope: 'recordings:read', action: 'fetch call recordings' },
};

/** One entry of a 422 `HTTPValidationError.detail` array. */
export interface ValidationIssue {
	loc: Array<string | number>;
	msg: string;
	type: string;
	[key: string]: unknown;
}

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
export function fieldOf(loc: Array<string | number>): string {
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
	const subject = operation === 'importLead' ? 'lead' : 'request';
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

/** Maps a final (non-retried) error response to an error that says what to do. */
export function errorFromResponse(
	node: INode,
	response: ApiResponse,
	operation: ApiOperation,
	attempts: number,
): NodeApiError {
	const { statusCode } = response;
	if (statusCode === 422) return validationError(node, response, operation);

	const said = serverMessage(response);
	const { scope, action } = OPERATION_SCOPES[operation];
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
	} else if (statusCode >= 500 || statusCode === 408 || statusCode === 429) {
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
	});
}
