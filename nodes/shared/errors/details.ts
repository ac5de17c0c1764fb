/**
 * What an error carries beyond its message (its HTTP status, its field problems), read only here.
 * Errors are recognised by shape, not `instanceof`: n8n 1.x and 2.x may load another copy of
 * n8n-workflow, whose classes are not ours.
 */
import type { JsonObject, NodeApiError, NodeOperationError } from 'n8n-workflow';

/** What the nodes throw: every failure ends as one of these. */
export type NodeError = NodeApiError | NodeOperationError;

/** Where a 422 detail array travels to the error item (`json.message.details`, see item.ts). */
export const VALIDATION_DETAILS = 'validationDetails';

/**
 * The editor labels of the input fields whose values were refused (`json.message.fields`, see
 * item.ts): by the node before sending, or by the service's 422. What an IF node routes on.
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
