import { createHash } from 'crypto';

import type { ApiKey } from '../emulator';

/**
 * A valid-format API key ('pf_live_' + 43 URL-safe characters) that no other test uses, so a
 * leak can be searched for by its exact value. One per scenario also gives each scenario its
 * own rate-limit budget in the node's process-wide rate budget, so concurrent scenarios never wait
 * on each other's 429s.
 */
export function sentinelKey(label: string): string {
	return `pf_live_${createHash('sha256').update(`reliability sentinel: ${label}`).digest('base64url')}`;
}

export function keyWithAllScopes(key: string): ApiKey[] {
	return [{ key, scopes: ['leads:write', 'calls:read', 'recordings:read'] }];
}
