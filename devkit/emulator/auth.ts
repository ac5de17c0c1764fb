/**
 * API keys and scopes, as FastAPI's HTTPBearer answers: 401 with `WWW-Authenticate: Bearer` for a
 * missing or malformed header or an unknown key, 403 naming the missing scope, so the node can
 * tell "bad key" from "key without permission".
 */
import { ApiKey, Scope } from './types';
import { detail, Reply } from './http';

/**
 * Fixed demo keys ('pf_live_' + 43 URL-safe characters, like real keys) so that tests, the CLI
 * and workflows in another process can all use them without any exchange.
 */
export const DEMO_KEYS = {
	full: 'pf_live_demoFull_01Gal_69nvLj86w8xaJhvkyRDdbrwEgXmF',
	leadsOnly: 'pf_live_demoLeadsOnly_Nc6IQna2F1YMiIZXCmfIWMO78au_M',
	callsOnly: 'pf_live_demoCallsOnly_LoC0bqDYpBdVRgHoWHn7SdzJVWD14',
	noScopes: 'pf_live_demoNoScopes__3vudC3qeQ3nDDRn2cJ3dtqpZz0qmK',
	callsAndRecordings: 'pf_live_demoCallsAndRecordings_-cZDCngUL3oQwiccTS6X',
} as const;

export const DEMO_KEY_SCOPES: ApiKey[] = [
	{ key: DEMO_KEYS.full, scopes: ['leads:write', 'calls:read', 'recordings:read'] },
	{ key: DEMO_KEYS.leadsOnly, scopes: ['leads:write'] },
	{ key: DEMO_KEYS.callsOnly, scopes: ['calls:read'] },
	{ key: DEMO_KEYS.noScopes, scopes: [] },
	{ key: DEMO_KEYS.callsAndRecordings, scopes: ['calls:read', 'recordings:read'] },
];

/** The request's key when it holds `scope`, else the error answer. */
export function authorize(keys: ApiKey[], authorization = '', scope: Scope): string | Reply {
	// HTTPBearer: the scheme in any case, the credentials everything after one space.
	const key = /^Bearer (.+)$/i.exec(authorization)?.[1].trim();
	const challenge = { 'WWW-Authenticate': 'Bearer' };
	if (key === undefined) return detail(401, 'Not authenticated', challenge);
	const granted = keys.find((known) => known.key === key);
	if (!granted) return detail(401, 'Invalid API key', challenge);
	return granted.scopes.includes(scope)
		? key
		: detail(403, `API key lacks required scope: ${scope}`);
}
