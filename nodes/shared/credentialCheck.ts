import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { LeadCallAccessApi } from '../../credentials/LeadCallAccessApi.credentials';
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

const credentialType = new LeadCallAccessApi();

async function runProbe(
	this: ICredentialTestFunctions,
	credential: ICredentialDataDecryptedObject,
	settings: ConnectionSettings,
	probe: ScopeProbe,
): Promise<ProbeOutcome> {
	// Credential tests get only the request-style helper (no httpRequest in
	// ICredentialTestFunctions on n8n 1.x or 2.x), which does not authenticate: the credential's
	// own `authenticate` attaches the key, as it does to every other request.
	const { helpers } = this;
	const { url, headers } = await credentialType.authenticate(credential, {
		url: `${settings.apiBase}${probe.path}`,
		method: probe.method,
		headers: { Accept: 'application/json' },
	});
	try {
		const response = (await helpers.request({
			method: probe.method,
			uri: url,
			qs: probe.qs,
			body: probe.body,
			json: true,
			headers,
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

/** "a, b and c" */
const listed = (words: string[]) =>
	words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;

/**
 * A key that lacks some scopes fails the test, because n8n's dialog shows only its own line for
 * a test that passes: the message is the only way the user sees what is missing. It says what
 * the key works for first, and that the rest is optional: n8n saves a credential whose test
 * failed, and a key made only to import leads is right as it is.
 */
function partialKeyMessage(has: ScopeProbe[], lacks: ScopeProbe[]): string {
	const worksFor = listed(has.map(({ neededBy }) => neededBy));
	const lacking = listed(lacks.map(({ scope, neededBy }) => `${scope} (for ${neededBy})`));
	return (
		`This key works for ${worksFor} (it has ${listed(has.map(({ scope }) => scope))}) but lacks ${lacking}. ` +
		`If you use only ${worksFor}, this key is all you need: the rest is optional. ` +
		'For the others, create a key with those scopes too in the desktop app (Settings > Developers)'
	);
}

/**
 * Tests what the key can do instead of requiring one scope: one probe per scope. Passes when the
 * key holds every scope; fails naming the missing ones otherwise (`partialKeyMessage`).
 */
export async function testCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted<ICredentialDataDecryptedObject>,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	let settings: ConnectionSettings;
	try {
		settings = parseConnectionSettings(data);
	} catch (error) {
		return { status: 'Error', message: (error as Error).message };
	}
	const has: ScopeProbe[] = [];
	const lacks: ScopeProbe[] = [];
	for (const probe of PROBES) {
		const outcome = await runProbe.call(this, data, settings, probe);
		if ('failure' in outcome) return { status: 'Error', message: outcome.failure };
		(outcome.granted ? has : lacks).push(probe);
	}
	if (has.length === 0) {
		const missing = lacks.map(({ scope, neededBy }) => `${scope} (needed by ${neededBy})`);
		return {
			status: 'Error',
			message: `The API key is valid but has none of the scopes this node uses: ${missing.join(', ')}`,
		};
	}
	if (lacks.length > 0) return { status: 'Error', message: partialKeyMessage(has, lacks) };
	return {
		status: 'OK',
		message: `Valid API key with scopes: ${has.map(({ scope }) => scope).join(', ')}`,
	};
}
