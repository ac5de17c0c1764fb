import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { countryOptions, normalizePhone } from '../../helpers/phone';
import type { OptionalField } from './fields';
import { OPTIONAL_FIELDS, additionalFieldsProperty, clearFieldsProperty } from './fields';
import type { ApiOperation } from '../../../shared/transport';
import { apiRequest } from '../../../shared/transport';
import { fieldError } from '../../../shared/errors';
import { optionsCollection, readRequestPolicy } from '../../../shared/options/requestOptions';
import { isJsonObject } from '../../../shared/json';
import { skipDecision, skipUnchangedOption } from './skipUnchanged';
import type { OperationDeclaration } from '../operation';

const DEFAULT_COUNTRY_HELP =
	'The number is read as that country writes it: with United States, (415) 555-2671 becomes +14155552671; with Hungary, 06 20 123 4567 becomes +36201234567.';

/**
 * Default Country. The parameter keeps its first name, defaultCountryCode, so saved workflows
 * load: versions 1 and 2 keep the text field (now a two-letter code or a calling code), version 3
 * lists the countries. Both read the same values, so an expression may give either.
 */
const defaultCountryProperties: INodeProperties[] = [
	{
		displayName: 'Default Country',
		name: 'defaultCountryCode',
		type: 'string',
		default: '',
		placeholder: 'e.g. US or 1',
		description: `Country of numbers written without a country code, as its two-letter code (US, GB, HU) or calling code (1, 44, 36). ${DEFAULT_COUNTRY_HELP} A calling code shared by several countries reads numbers as its main country does (1: US, 7: Russia, 44: GB).`,
		displayOptions: { show: { '@version': [1, 2] } },
	},
	{
		displayName: 'Default Country',
		name: 'defaultCountryCode',
		type: 'options',
		default: '',
		options: [{ name: 'None', value: '' }, ...countryOptions()],
		description: `Country of numbers written without a country code. ${DEFAULT_COUNTRY_HELP} In an expression, give its two-letter code (US, HU) or calling code (1, 36).`,
		displayOptions: { show: { '@version': [{ _cnd: { gte: 3 } }] } },
	},
];

/** The request this operation sends, in the words of its errors. */
const IMPORT_LEAD: ApiOperation = { scope: 'leads:write', action: 'import leads', subject: 'lead' };

const properties: INodeProperties[] = [
	{
		displayName: 'Phone (E.164)',
		name: 'phoneE164',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155552671',
		description:
			"The lead's phone number, e.g. +14155552671; spaces and dashes are removed. An existing lead with this number is updated.",
	},
	additionalFieldsProperty(1),
	additionalFieldsProperty(2),
	clearFieldsProperty,
	optionsCollection([
		...defaultCountryProperties,
		{
			displayName: 'Validate Phone',
			name: 'validatePhone',
			type: 'boolean',
			default: true,
			description:
				"Whether to check the number before sending it: a length or a start its country's numbers never have fails the item without using a request from the rate limit, and the message gives the lengths the country allows",
		},
		skipUnchangedOption,
	]),
];

const PHONE_FIELD = { apiName: 'phone_e164', label: 'Phone (E.164)' };

function preview(value: string): string {
	return value.length > 40 ? `${value.slice(0, 40)}...` : value;
}

/** Turns a parameter value into text, or says why it cannot be. */
function asText(value: unknown): { text?: string; problem?: string } {
	if (value === undefined || value === null) return { text: '' };
	// Legal Basis in node version 2 is a resource locator: its value is the text.
	if (typeof value === 'object' && '__rl' in value && 'value' in value) return asText(value.value);
	if (typeof value === 'string') return { text: value };
	if (typeof value === 'number' && Number.isFinite(value)) return { text: String(value) };
	if (typeof value === 'boolean') return { text: String(value) };
	return { problem: `must be text, but got ${Array.isArray(value) ? 'a list' : typeof value}` };
}

function buildLeadImport(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const options = this.getNodeParameter('options', itemIndex, {}) as {
		defaultCountryCode?: string;
		validatePhone?: boolean;
	};

	// A problem with one input field, reported on the item before any request is sent.
	const problemIn = (field: { apiName: string; label: string }, problem: string) =>
		fieldError(this.getNode(), itemIndex, field, problem);
	const phone = asText(this.getNodeParameter('phoneE164', itemIndex, ''));
	if (phone.problem) throw problemIn(PHONE_FIELD, phone.problem);
	const rawPhone = (phone.text ?? '').trim();
	if (rawPhone === '') throw problemIn(PHONE_FIELD, 'Field required (the value is empty)');
	const validate = options.validatePhone !== false;
	const normalized = normalizePhone(rawPhone, options.defaultCountryCode, { validate });
	if (!normalized.ok && (validate || normalized.always)) {
		const problem = `"${preview(rawPhone)}" ${normalized.reason}`;
		throw problemIn(PHONE_FIELD, problem);
	}
	const body: IDataObject = { phone_e164: normalized.ok ? normalized.e164 : rawPhone };

	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const cleared = this.getNodeParameter('clearFields', itemIndex, []) as OptionalField[];
	for (const field of Object.keys(OPTIONAL_FIELDS) as OptionalField[]) {
		const { apiName } = OPTIONAL_FIELDS[field];
		const value = asText(additional[field]);
		if (value.problem) throw problemIn(OPTIONAL_FIELDS[field], value.problem);
		const text = (value.text ?? '').trim();
		if (cleared.includes(field)) {
			if (text !== '') {
				throw problemIn(OPTIONAL_FIELDS[field], 'is both set and listed in Fields to Clear');
			}
			body[apiName] = null;
		} else if (text !== '') {
			body[apiName] = text;
		}
	}
	return body;
}

async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const decision = await skipDecision(this, itemIndex, (index) =>
		buildLeadImport.call(this, index),
	);
	const body = decision.body ?? buildLeadImport.call(this, itemIndex);
	if (decision.skip) return [{ json: decision.mark(body), pairedItem: { item: itemIndex } }];
	const response = await apiRequest.call(
		this,
		{ operation: IMPORT_LEAD, method: 'POST', path: '/v1/leads', body },
		readRequestPolicy.call(this, itemIndex),
	);
	await decision.accepted();
	// The 201 body's shape is not specified; when it is not a JSON object, report what was imported.
	const lead = isJsonObject(response.body) ? response.body : body;
	return [{ json: decision.mark(lead), pairedItem: { item: itemIndex } }];
}

export const operation: OperationDeclaration = {
	value: 'import',
	name: 'Import',
	description: 'Create or update a lead, matched by phone number',
	action: 'Import a lead',
	api: IMPORT_LEAD,
	properties,
	execute,
};
