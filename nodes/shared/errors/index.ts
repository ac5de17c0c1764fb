/**
 * The one place for errors: every error the nodes raise is built in this folder (API answers in
 * api.ts, network failures and downloads in network.ts, fields checked before sending in
 * fields.ts), only details.ts reads what an error carries (its status, its 422 details, the
 * fields refused), and item.ts shapes the error output's item.
 */
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { NodeError } from './details';
import { isNodeError } from './details';

export type { ApiOperation } from './api';
export {
	answerError,
	errorFromResponse,
	rateLimitError,
	serverMessage,
	spentKeyError,
} from './api';
export type { NodeError } from './details';
export { isStale, statusOf, validationDetailsOf } from './details';
export { duration } from './duration';
export { fieldError } from './fields';
export { errorItem } from './item';
export {
	describeNetworkFailure,
	downloadError,
	downloadFailure,
	networkError,
	networkErrorCode,
} from './network';

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
