import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { REFUSED_FIELDS, VALIDATION_DETAILS } from './details';

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
