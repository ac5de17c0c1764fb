/**
 * Validation of the credential's connection settings. Used both by the credential's
 * `authenticate` (the last gate before the key is attached to a request) and by the
 * transport (to fail early, with the item index, before any request is sent). It imports
 * nothing, so the credential depends on no request code.
 */

export const API_KEY_PATTERN = /^pf_live_[A-Za-z0-9_-]{43}$/;

export interface ConnectionSettings {
	/** Base URL without trailing slash and without a trailing `/v1`, e.g. `https://api.example.com`. */
	apiBase: string;
	/** Origin of the base URL: the only origin the API key may ever be sent to. */
	origin: string;
	apiKey: string;
	/** 0 turns pacing off. */
	requestsPerMinute: number;
	/** The budget's window: a minute, except in tests and benchmarks that shorten it. */
	windowMs: number;
}

/** Thrown for settings problems; the message is safe to show (it never contains the key). */
export class ConnectionSettingsError extends Error {}

function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase();
	return (
		host === 'localhost' ||
		host.endsWith('.localhost') ||
		host === '[::1]' ||
		/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
	);
}

export function parseBaseUrl(raw: unknown): { apiBase: string; origin: string } {
	const text = typeof raw === 'string' ? raw.trim() : '';
	if (text === '') {
		throw new ConnectionSettingsError('The credential has no Base URL: enter the API address');
	}
	if (!URL.canParse(text)) {
		throw new ConnectionSettingsError(
			`The credential's Base URL "${text}" is not a valid URL (expected e.g. https://api.example.com)`,
		);
	}
	const url = new URL(text);
	if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
		throw new ConnectionSettingsError(
			`The credential's Base URL must start with https:// (plain http:// is allowed only for localhost), got "${url.protocol}//${url.host}"`,
		);
	}
	if (url.username || url.password || url.search || url.hash) {
		throw new ConnectionSettingsError(
			"The credential's Base URL must not contain a user name, password, query or fragment",
		);
	}
	// Users often paste the versioned address; every path in the spec already starts with /v1.
	const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/i, '');
	return { apiBase: `${url.origin}${path}`, origin: url.origin };
}

function normalizeApiKey(raw: unknown): string {
	// Pasted keys often carry a stray space or line break; anything else is a real format error.
	const key = typeof raw === 'string' ? raw.trim() : '';
	if (!API_KEY_PATTERN.test(key)) {
		const detail =
			key === ''
				? 'it is empty'
				: !key.startsWith('pf_live_')
					? "it does not start with 'pf_live_'"
					: `it has ${key.length - 'pf_live_'.length} characters after 'pf_live_' (expected 43 letters, digits, '-' or '_')`;
		throw new ConnectionSettingsError(
			`The credential's API key is malformed: ${detail}. Copy the whole key from Settings > Developers in the desktop app`,
		);
	}
	return key;
}

function parseRequestsPerMinute(raw: unknown): number {
	const value = raw === undefined || raw === null || raw === '' ? 60 : Number(raw);
	if (!Number.isFinite(value) || value < 0) {
		throw new ConnectionSettingsError(
			"The credential's Requests per Minute must be a number of 0 or more (0 turns pacing off)",
		);
	}
	return value;
}

/** The credential's hidden `rateWindowSeconds`; anything unreadable means the usual minute. */
function parseWindowMs(raw: unknown): number {
	const seconds = Number(raw);
	return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 60_000;
}

export function parseConnectionSettings(credentials: Record<string, unknown>): ConnectionSettings {
	const { apiBase, origin } = parseBaseUrl(credentials.baseUrl);
	return {
		apiBase,
		origin,
		apiKey: normalizeApiKey(credentials.apiKey),
		requestsPerMinute: parseRequestsPerMinute(credentials.requestsPerMinute),
		windowMs: parseWindowMs(credentials.rateWindowSeconds),
	};
}
