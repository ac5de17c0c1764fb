import type { IDataObject } from 'n8n-workflow';

/** A JSON object (not null, not a list): the shape the spec leaves open for most bodies. */
export function isJsonObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
