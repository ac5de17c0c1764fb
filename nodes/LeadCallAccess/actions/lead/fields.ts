import type { INodeProperties } from 'n8n-workflow';

/**
 * The optional `LeadImport` fields: UI name -> API name, label and the UI help. The Additional
 * Fields collection, the Fields to Clear list and the request body are all built from this map.
 */
export const OPTIONAL_FIELDS = {
	name: {
		apiName: 'name',
		label: 'Name',
		placeholder: 'e.g. Ada Lovelace',
		description: 'Display name of the lead',
	},
	campaignId: {
		apiName: 'campaign_id',
		label: 'Campaign ID',
		placeholder: 'e.g. spring-2026',
		description: 'Identifier of the campaign the lead belongs to, as the service names it',
	},
	contactType: {
		apiName: 'contact_type',
		label: 'Contact Type',
		placeholder: 'e.g. prospect',
		description: 'Kind of contact, as your workspace names it',
	},
	legalBasis: {
		apiName: 'legal_basis',
		label: 'Legal Basis',
		placeholder: 'e.g. consent',
		description:
			'Legal basis under which the lead is held. Pick a GDPR lawful basis or enter the value your workspace uses.',
	},
} as const;
export type OptionalField = keyof typeof OPTIONAL_FIELDS;

const fieldNames = Object.keys(OPTIONAL_FIELDS) as OptionalField[];

/** The six lawful bases of GDPR Art. 6(1), offered as suggestions for Legal Basis. */
export const LAWFUL_BASES = [
	{ name: 'Consent', value: 'consent' },
	{ name: 'Contract', value: 'contract' },
	{ name: 'Legal Obligation', value: 'legal_obligation' },
	{ name: 'Vital Interests', value: 'vital_interests' },
	{ name: 'Public Task', value: 'public_task' },
	{ name: 'Legitimate Interests', value: 'legitimate_interests' },
];

/**
 * Legal Basis in node version 2: suggestions with free input. n8n has no combo box; a resource
 * locator is its pattern for "pick from a list or type your own": "From List" offers the six
 * bases, "Custom" takes any text, and both accept expressions.
 */
const legalBasisV2: INodeProperties = {
	displayName: OPTIONAL_FIELDS.legalBasis.label,
	name: 'legalBasis',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	description: OPTIONAL_FIELDS.legalBasis.description,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a lawful basis...',
			typeOptions: {
				searchListMethod: 'searchLawfulBases',
				searchable: true,
				skipCredentialsCheckInRLC: true,
			},
		},
		{ displayName: 'Custom', name: 'custom', type: 'string', placeholder: 'e.g. consent' },
	],
};

function fieldProperty(field: OptionalField, version: 1 | 2): INodeProperties {
	if (field === 'legalBasis' && version === 2) return legalBasisV2;
	const { label, placeholder, description } = OPTIONAL_FIELDS[field];
	return { displayName: label, name: field, type: 'string', default: '', placeholder, description };
}

/** Additional Fields of one node version (version 1 keeps Legal Basis as plain text). */
export function additionalFieldsProperty(version: 1 | 2): INodeProperties {
	return {
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: fieldNames
			.map((field) => fieldProperty(field, version))
			.sort((a, b) => a.displayName.localeCompare(b.displayName)),
		description: 'Empty values are not sent, so an update keeps what the lead already has',
		displayOptions: {
			show: { '@version': version === 1 ? [1] : [{ _cnd: { gte: 2 } }] },
		},
	};
}

export const clearFieldsProperty: INodeProperties = {
	displayName: 'Fields to Clear',
	name: 'clearFields',
	type: 'multiOptions',
	default: [],
	options: fieldNames
		.map((field) => ({ name: OPTIONAL_FIELDS[field].label, value: field }))
		.sort((a, b) => a.name.localeCompare(b.name)),
	description: 'Fields whose value to remove from an existing lead',
};
