import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { countryOptions, EMPTY_PHONE, normalizePhone } from '../../helpers/phone';
import type { OptionalField } from './fields';
import { OPTIONAL_FIELDS, additionalFieldsProperty, clearFieldsProperty } from './fields';
import type { ApiOperation } from '../../../shared/transport';
import { apiRequest } from '../../../shared/transport';
import { fieldError } from '../../../shared/errors';
import { optionsCollection, readRequestPolicy } from '../../../shared/options';
import { isJsonObject } from '../../../shared/context';
import { isDryRun, skipDecision, skipUnchangedOption } from './skipUnchanged';
import type { OperationDeclaration } from '../operation';

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
		description:
			'Country of numbers written without a country code, as its two-letter code (US, HU) or calling code (1, 36). <a href="https://www.npmjs.com/package/n8n-nodes-lead-call-access#how-phone-numbers-are-read">How numbers are read</a>.',
		displayOptions: { show: { '@version': [1, 2] } },
	},
	{
		displayName: 'Default Country',
		name: 'defaultCountryCode',
		type: 'options',
		default: '',
		options: [{ name: 'None', value: '' }, ...countryOptions()],
		description:
			'Country of numbers written without a country code: with Hungary, 06 20 123 4567 is read as +36 20 123 4567. <a href="https://www.npmjs.com/package/n8n-nodes-lead-call-access#how-phone-numbers-are-read">More</a>.',
		hint: 'In an expression, give its two-letter code (US, HU) or calling code (1, 36)',
		displayOptions: { show: { '@version': [{ _cnd: { gte: 3 } }] } },
	},
];

const PHONE_FIELD = { apiName: 'phone_e164', label: 'Phone' };

/** The request this operation sends, in the words of its errors (fields by their labels). */
const IMPORT_LEAD: ApiOperation = {
	scope: 'leads:write',
	action: 'import leads',
	subject: 'lead',
	fieldLabels: Object.fromEntries(
		[PHONE_FIELD, ...Object.values(OPTIONAL_FIELDS)].map(({ apiName, label }) => [apiName, label]),
	),
};

const properties: INodeProperties[] = [
	{
		displayName: 'Phone',
		name: 'phoneE164',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +1 415 555 2671',
		description: 'An existing lead with this number is updated',
		hint: 'With + and the country code, or as the Default Country writes it; spaces, dashes and brackets are fine',
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
				'Whether to check the number before sending it: a number its country cannot have fails its item, and the message says why',
		},
		{
			displayName: 'Dry Run',
			name: 'dryRun',
			type: 'boolean',
			default: false,
			description:
				'Whether to check each lead without sending anything: a lead that would be refused fails as in a real run, the others come out as they would be sent',
		},
		skipUnchangedOption,
	]),
];

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
	const got = Array.isArray(value) ? 'a list' : typeof value;
	return { problem: `must be text, but got ${got}: map a single value, or use an expression` };
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
	if (rawPhone === '') throw problemIn(PHONE_FIELD, EMPTY_PHONE);
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
				throw problemIn(
					OPTIONAL_FIELDS[field],
					'is both set and listed in Fields to Clear: remove it from one of them',
				);
			}
			body[apiName] = null;
		} else if (text !== '') {
			body[apiName] = text;
		}
	}
	return body;
}

/**
 * Dry Run: a real run without the sending (no request, Skip Unchanged Leads left alone). A lead
 * that would be sent comes out as it would be sent; one that would be refused fails its item
 * with the error a real run gives it, so it takes the same way (error output, or the node fails).
 */
function dryRun(this: IExecuteFunctions, itemIndex: number): INodeExecutionData[] {
	const phoneAsWritten = asText(this.getNodeParameter('phoneE164', itemIndex, '')).text;
	const json = { ...buildLeadImport.call(this, itemIndex), dryRun: true, phoneAsWritten };
	return [{ json, pairedItem: { item: itemIndex } }];
}

async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	if (isDryRun(this, itemIndex)) return dryRun.call(this, itemIndex);
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
