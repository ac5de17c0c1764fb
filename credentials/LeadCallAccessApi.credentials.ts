import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
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
			placeholder: 'https://api.example.com',
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
			placeholder: 'pf_live_...',
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
				"This key's request budget. The node never sends more than this in any minute, across all workflows of this n8n instance that use the same key, and slows down by itself if the server allows less. 0 turns pacing off.",
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
		// The credential test below passes the raw Base URL; use the normalised one instead.
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

	// Read-only probe: lists one call. It needs the calls:read scope, so a key without it
	// is reported as such rather than as an invalid key.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/calls',
			method: 'GET',
			qs: { limit: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'API key missing or invalid (401): check the key, it may have been revoked',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The API key is valid but lacks the scope calls:read (403), which this test and List Calls need. Import Lead needs leads:write and Get Recording needs recordings:read; if your workflows only use those, you can save this credential anyway.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No API found at this Base URL (404): check the address',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 429,
					message:
						'The API key is valid but currently rate limited (429): wait a minute and test again',
				},
			},
		],
	};
}
