import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import {
	ConnectionSettingsError,
	parseConnectionSettings,
} from '../nodes/shared/transport/connection';

export class LeadCallAccessApi implements ICredentialType {
	name = 'leadCallAccessApi';

	displayName = 'Lead & Call Access API';

	icon: Icon = {
		light: 'file:../nodes/LeadCallAccess/leadCallAccess.svg',
		dark: 'file:../nodes/LeadCallAccess/leadCallAccess.dark.svg',
	};

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-lead-call-access#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api.example.com',
			description:
				'Address of the API, without /v1. Must use https:// (http:// is accepted only for localhost).',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'e.g. pf_live_AbC...',
			description:
				'Created in the desktop app under Settings > Developers. Starts with pf_live_. Give it the scopes your workflows need: leads:write, calls:read, recordings:read.',
		},
		{
			displayName: 'Requests per Minute',
			name: 'requestsPerMinute',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 60,
			description:
				"This key's request budget. The node never sends more than this in any minute, across all workflows of this n8n instance that use the same key, and slows down by itself if the server allows less. When the server states the key's limit and what is left in its answers, the node follows that instead, never counting on more than this. 0 turns pacing off.",
		},
		{
			// Never shown: tests and benchmarks shorten the budget's minute to run in seconds.
			displayName: 'Rate Window Seconds',
			name: 'rateWindowSeconds',
			type: 'hidden',
			default: 60,
		},
	];

	/**
	 * The only place the key is attached to a request. It refuses to attach it to any
	 * address outside the configured base URL, so the key cannot leak to another host.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const settings = parseConnectionSettings(credentials);
		const baseURL = requestOptions.baseURL === undefined ? undefined : settings.apiBase;
		const target = new URL(
			baseURL === undefined ? requestOptions.url : `${baseURL}${requestOptions.url}`,
		);
		if (target.origin !== settings.origin) {
			throw new ConnectionSettingsError(
				`Refused to send the API key to ${target.origin}: it is only ever sent to the credential's Base URL (${settings.origin})`,
			);
		}
		return {
			...requestOptions,
			baseURL,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${settings.apiKey}` },
			sendCredentialsOnCrossOriginRedirect: false,
		};
	}

	// No `test` here: both nodes name a custom test (testedBy) that checks each scope
	// separately, so a key with only leads:write is reported valid instead of failing.
}
