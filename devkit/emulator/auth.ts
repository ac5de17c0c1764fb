/**
 * API keys and scopes. Errors follow FastAPI's HTTPBearer conventions: 401 with
 * `WWW-Authenticate: Bearer` for a missing/malformed header or an unknown key, 403 naming the
 * missing scope, so the node can tell "bad key" from "key without permission".
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

export const ALL_SCOPES: Scope[] = ['leads:write', 'calls:read', 'recordings:read'];

export const DEMO_KEY_SCOPES: ApiKey[] = [
	{ key: DEMO_KEYS.full, scopes: ALL_SCOPES },
	{ key: DEMO_KEYS.leadsOnly, scopes: ['leads:write'] },
	{ key: DEMO_KEYS.callsOnly, scopes: ['calls:read'] },
	{ key: DEMO_KEYS.noScopes, scopes: [] },
	{ key: DEMO_KEYS.callsAndRecordings, scopes: ['calls:read', 'recordings:read'] },
];

export const API_KEY_PATTERN = /^pf_live_[A-Za-z0-9_-]{43}$/;

export type AuthResult = { ok: true; key: string } | { ok: false; reply: Reply };

const challenge = { 'WWW-Authenticate': 'Bearer' };

export class KeyStore {
	private readonly scopes = new Map<string, Set<Scope>>();

	constructor(keys: ApiKey[]) {
		for (const { key, scopes } of keys) this.scopes.set(key, new Set(scopes));
	}

	/** Authenticates the request and checks that its key holds `scope`. */
	authorize(authorization: string | undefined, scope: Scope): AuthResult {
		// HTTPBearer: scheme is case-insensitive, credentials are everything after one space.
		const match = /^Bearer (.+)$/i.exec(authorization ?? '');
		if (!match) return { ok: false, reply: detail(401, 'Not authenticated', challenge) };
		const key = match[1].trim();
		const granted = this.scopes.get(key);
		if (!granted) return { ok: false, reply: detail(401, 'Invalid API key', challenge) };
		if (!granted.has(scope)) {
			return { ok: false, reply: detail(403, `API key lacks required scope: ${scope}`) };
		}
		return { ok: true, key };
	}
}
