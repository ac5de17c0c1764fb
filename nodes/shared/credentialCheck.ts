import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { describeNetworkFailure, networkErrorCode } from './errors';
import type { ConnectionSettings } from './connection';
import { parseConnectionSettings } from './connection';

/** The name both nodes give the test in `methods.credentialTest` and (literally) `testedBy`. */
export const CREDENTIAL_TEST = 'leadCallAccessApiTest';

const PROBE_TIMEOUT_MS = 20_000;

interface ScopeProbe {
	scope: string;
	neededBy: string;
	method: 'GET' | 'POST';
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** Statuses that show the key holds the scope (it got past the scope check). */
	granted: (status: number) => boolean;
}

/**
 * One harmless request per scope; none creates anything. The API checks the scope (403)
 * before it looks at the request, so getting past that check proves the scope.
 */
const PROBES: ScopeProbe[] = [
	{
		scope: 'calls:read',
		neededBy: 'Get Many Calls and the trigger',
		method: 'GET',
		path: '/v1/calls',
		qs: { limit: 1 },
		granted: (status) => status >= 200 && status < 300,
	},
	{
		// An empty lead is rejected (422): nothing is imported.
		scope: 'leads:write',
		neededBy: 'Import Lead',
		method: 'POST',
		path: '/v1/leads',
		body: {},
		granted: (status) => status === 422 || status === 400,
	},
	{
		// A call that cannot exist: 404 (or 422 for an ID format the API rejects).
		scope: 'recordings:read',
		neededBy: 'Get Recording',
		method: 'GET',
		path: '/v1/calls/n8n-credential-test-no-such-call/recording',
		granted: (status) => status === 404 || status === 422 || (status >= 200 && status < 400),
	},
];

/** Whether the key holds the probe's scope, or why the test cannot tell. */
type ProbeOutcome = { granted: boolean } | { failure: string };

function outcomeOf(status: number, probe: ScopeProbe): ProbeOutcome {
	if (status === 401) {
		return {
			failure: 'The API key is invalid or revoked (401): copy it again from Settings > Developers',
		};
	}
	if (status === 429) {
		return { failure: 'The API key is rate limited right now (429): wait a minute and retry' };
	}
	if (status >= 500) {
		return { failure: `The API had a temporary problem (${status}): try again shortly` };
	}
	if (status === 403) return { granted: false };
	if (probe.granted(status)) return { granted: true };
	return {
		failure: `Unexpected answer ${status} to ${probe.method} ${probe.path}: check that the Base URL points at the API`,
	};
}

async function runProbe(
	this: ICredentialTestFunctions,
	settings: ConnectionSettings,
	probe: ScopeProbe,
): Promise<ProbeOutcome> {
	// Credential tests get only the request-style helper (no httpRequest in
	// ICredentialTestFunctions on n8n 1.x or 2.x); n8n's own credential tests use it too.
	const { helpers } = this;
	try {
		const response = (await helpers.request({
			method: probe.method,
			uri: `${settings.apiBase}${probe.path}`,
			qs: probe.qs,
			body: probe.body,
			json: true,
			headers: { Accept: 'application/json', Authorization: `Bearer ${settings.apiKey}` },
			resolveWithFullResponse: true,
			simple: false,
			followRedirect: false,
			followAllRedirects: false,
			timeout: PROBE_TIMEOUT_MS,
		})) as { statusCode: number };
		return outcomeOf(response.statusCode, probe);
	} catch (error) {
		const code = networkErrorCode(error);
		return { failure: describeNetworkFailure(code, settings.origin, PROBE_TIMEOUT_MS) };
	}
}

/**
 * Tests what the key can do instead of requiring one scope: a key that only imports leads is
 * valid. Reports the scopes it has and what the missing ones are needed for.
 */
export async function testCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted<ICredentialDataDecryptedObject>,
): Promise<INodeCredentialTestResult> {
	let settings: ConnectionSettings;
	try {
		settings = parseConnectionSettings(credential.data ?? {});
	} catch (error) {
		return { status: 'Error', message: (error as Error).message };
	}
	const has: string[] = [];
	const missing: string[] = [];
	for (const probe of PROBES) {
		const outcome = await runProbe.call(this, settings, probe);
		if ('failure' in outcome) return { status: 'Error', message: outcome.failure };
		if (outcome.granted) has.push(probe.scope);
		else missing.push(`${probe.scope} (needed by ${probe.neededBy})`);
	}
	if (has.length === 0) {
		return {
			status: 'Error',
			message: `The API key is valid but has none of the scopes this node uses: ${missing.join(', ')}`,
		};
	}
	const lacking = missing.length === 0 ? '' : `. Missing: ${missing.join(', ')}`;
	return { status: 'OK', message: `Valid API key with scopes: ${has.join(', ')}${lacking}` };
}
