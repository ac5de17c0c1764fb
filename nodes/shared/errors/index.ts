/**
 * The one place for errors: every error the nodes raise is built in this folder (API answers and
 * requests that gave up, network failures and downloads in request.ts, the node's own
 * problems and fields checked before sending here), and only details.ts reads what an error
 * carries (its status, its 422 details, the fields refused) and shapes the error output's item.
 */
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { NodeError } from './details';
import { REFUSED_FIELDS, VALIDATION_DETAILS, isNodeError } from './details';

export type { DownloadEnd } from './request';
export type { ApiOperation, GaveUp, ServerAnswer } from './details';
export {
	answerError,
	describeNetworkFailure,
	downloadError,
	downloadFailure,
	errorFromResponse,
	gaveUpError,
	networkError,
	networkErrorCode,
	rateLimitError,
	serverMessage,
	spentKeyError,
} from './request';
export type { NodeError } from './details';
export { duration, errorItem, isStale, statusOf, validationDetailsOf } from './details';

/**
 * Whom a message asks to be told about an answer the node cannot read, and where. The package
 * has no public issue tracker: its npm page (package.json's homepage) is the one real address.
 */
export const MAINTAINERS =
	"the node's maintainers through its npm page, https://www.npmjs.com/package/n8n-nodes-lead-call-access";

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

/** A problem that reads on after the field's label: "Phone is empty", "Name must be text". */
const READS_ON = /^(is|must|has|contains)\b/;

/**
 * A problem found in one input field before anything was sent, named by the field's label as
 * the editor shows it; it carries the same details as the API's own 422 (by the API's field
 * name), so both read alike on the error output.
 */
export function fieldError(
	node: INode,
	itemIndex: number,
	field: { apiName: string; label: string },
	problem: string,
): NodeOperationError {
	const message = READS_ON.test(problem)
		? `${field.label} ${problem}`
		: `${field.label}: ${problem}`;
	const error = new NodeOperationError(node, message, {
		itemIndex,
		description: `Check the ${field.label} field. Nothing was sent to the API for this item.`,
	});
	error.context[VALIDATION_DETAILS] = [
		{ loc: ['body', field.apiName], msg: problem, type: 'value_error' },
	];
	error.context[REFUSED_FIELDS] = [field.label];
	return error;
}
