import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { ConnectionSettingsError, parseConnectionSettings } from '../nodes/shared/connection';

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
				"The API address your provider gives you with your key (in the desktop app's Settings › Developers, or the service's API documentation), with or without /v1",
			hint: 'Starts with https:// (http:// only for a test server on this machine)',
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
				'Create it in the desktop app under Settings > Developers, with the scopes your workflows need (leads:write, calls:read, recordings:read). It starts with pf_live_.',
		},
		{
			displayName: 'Requests per Minute',
			name: 'requestsPerMinute',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 60,
			description:
				'How many requests this key may send per minute. The node never sends more, across all workflows using the key, and slows down if the service allows fewer. 0 turns this off.',
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
	 * The only place the key is attached to a request: n8n calls it for the nodes' requests, and
	 * the credential test (nodes/shared/credentialCheck.ts) calls it for its probes. It refuses
	 * to attach the key to any address outside the configured base URL, so the key cannot leak
	 * to another host.
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
	// separately, so its message can say what a key with only leads:write works for.
}
