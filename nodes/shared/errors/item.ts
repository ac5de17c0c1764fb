import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { NodeError } from './details';
import { refusedFieldsOf, statusOf, validationDetailsOf } from './details';

/**
 * The item an error belongs to, in the one shape every supported n8n routes to the error output:
 * 1.x moves an item there only when its json is exactly `{ error }` or `{ error, message }`
 * (2.x also allows `details`), and an item carrying the node error itself (`item.error`) has
 * its json replaced by `{ error: message }` on both lines, losing the fields below. So:
 * `error` is the message, `message` holds what an IF node or a person needs beyond it:
 * `httpCode` (only API answers have one), `fields` (the labels of the fields whose values were
 * refused, before sending or by the service) and `details` (every field problem, as a 422 lists them).
 */
export function errorItem(error: NodeError, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	const more: IDataObject = {};
	const httpCode = statusOf(error);
	if (httpCode) more.httpCode = httpCode;
	const fields = refusedFieldsOf(error);
	if (fields !== undefined) more.fields = fields;
	const details = validationDetailsOf(error);
	if (details !== undefined) more.details = details as IDataObject[];
	if (Object.keys(more).length > 0) json.message = more;
	return { json, pairedItem: { item: itemIndex } };
}
