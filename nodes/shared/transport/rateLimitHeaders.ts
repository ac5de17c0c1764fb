/**
 * What an API answer says about the key's rate limit, in the three common header families
 * (names case-insensitive); every stated window is returned, and the budget honours them all:
 * - `X-RateLimit-Limit` / `-Remaining` / `-Reset`: Reset as epoch seconds on some services, as
 *   seconds from now on others (told apart by size: no window lasts 30 years);
 * - `RateLimit-Limit` / `-Remaining` / `-Reset` (earlier IETF drafts): Reset in seconds;
 * - `RateLimit-Policy: "p";q=60;w=60` with `RateLimit: "p";r=12;t=30` (current IETF draft, one
 *   policy or more), or `RateLimit: limit=60, remaining=12, reset=30` (its dictionary form).
 */

export interface StatedWindow {
	/** Requests the key has left in this window, as the server counted at its answer. */
	remaining: number;
	/** When the window resets (epoch ms). */
	resetAtMs: number;
	/** The window's limit, when stated. */
	limit?: number;
	/** The window's length, when stated (`w` of a policy). */
	windowMs?: number;
}

type Headers = Record<string, unknown>;

/** Above this a Reset is an epoch time, not a delta (1e9 s is 31 years; epoch 1e9 is 2001). */
const EPOCH_SECONDS_FROM = 1e9;
const EPOCH_MS_FROM = 1e12;
const isUsable = (w: StatedWindow) => Number.isFinite(w.remaining) && Number.isFinite(w.resetAtMs);

function headerText(headers: Headers, name: string): string | undefined {
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() !== name) continue;
		const text = Array.isArray(value) ? value.join(', ') : value;
		if (typeof text === 'string' || typeof text === 'number') return String(text).trim();
	}
	return undefined;
}

/** A non-negative number at the start of the value (`"60"`, `"60, 60;w=60"`), else undefined. */
function leadingNumber(text: string | undefined): number | undefined {
	const match = text === undefined ? null : /^\s*(\d+(?:\.\d+)?)/.exec(text);
	return match ? Number(match[1]) : undefined;
}

function secondsAsMs(text: string | undefined): number | undefined {
	return leadingNumber(text) === undefined ? undefined : Number(leadingNumber(text)) * 1000;
}

/** Reset as epoch ms: delta seconds, epoch seconds or epoch ms, or an HTTP date. */
function resetAt(value: string | undefined, nowMs: number): number {
	if (value !== undefined && /[a-z]/i.test(value)) return Date.parse(value);
	const number = Number(leadingNumber(value));
	if (number >= EPOCH_MS_FROM) return number;
	if (number >= EPOCH_SECONDS_FROM) return number * 1000;
	return nowMs + number * 1000;
}

/**
 * The members of a structured-field list (RFC 8941), each as its name and its parameters:
 * `"a";q=1;w=2, b;r=3` -> [{ name: 'a', params: { q: '1', w: '2' } }, ...]. Enough of the syntax
 * for these headers: strings, tokens, integers and decimals.
 */
function structuredList(text: string): Array<{ name: string; params: Record<string, string> }> {
	const members: Array<{ name: string; params: Record<string, string> }> = [];
	for (const raw of text.match(/(?:"(?:[^"\\]|\\.)*"|[^,])+/g) ?? []) {
		const parts = raw.match(/(?:"(?:[^"\\]|\\.)*"|[^;])+/g) ?? [];
		const [head, ...rest] = parts.map((part) => part.trim());
		const params: Record<string, string> = {};
		for (const param of rest) {
			const [key, value = '?1'] = param.split('=');
			params[key.trim().toLowerCase()] = value.trim().replace(/^"|"$/g, '');
		}
		// A dictionary member (`limit=60`) carries its value in its head.
		const [name, value] = (head ?? '').split('=');
		if (value !== undefined) params[name.trim().toLowerCase()] = value.trim();
		members.push({ name: (name ?? '').trim().replace(/^"|"$/g, ''), params });
	}
	return members;
}

/** The current IETF draft: `RateLimit` (per policy, or as a dictionary) with `RateLimit-Policy`. */
function ietfWindows(headers: Headers, nowMs: number): StatedWindow[] {
	const state = headerText(headers, 'ratelimit');
	if (state === undefined) return [];
	const members = structuredList(state);
	const policies = new Map(
		structuredList(headerText(headers, 'ratelimit-policy') ?? '').map((p) => [p.name, p.params]),
	);
	const dictionary = Object.assign({}, ...members.map((m) => m.params)) as Record<string, string>;
	if (dictionary.remaining !== undefined && dictionary.reset !== undefined) {
		const window: StatedWindow = {
			remaining: Number(leadingNumber(dictionary.remaining)),
			resetAtMs: nowMs + Number(leadingNumber(dictionary.reset)) * 1000,
			limit: leadingNumber(dictionary.limit),
			windowMs: secondsAsMs(dictionary.w ?? dictionary.window),
		};
		return isUsable(window) ? [window] : [];
	}
	return members
		.map(({ name, params }): StatedWindow => {
			const policy = policies.get(name) ?? (policies.size === 1 ? [...policies.values()][0] : {});
			return {
				remaining: Number(leadingNumber(params.r)),
				resetAtMs: nowMs + Number(secondsAsMs(params.t ?? policy.w)),
				limit: leadingNumber(policy.q),
				windowMs: secondsAsMs(policy.w),
			};
		})
		.filter(isUsable);
}

/** `X-RateLimit-*` or `RateLimit-*` (prefix ''): Limit, Remaining, Reset. */
function classicWindow(headers: Headers, prefix: string, nowMs: number): StatedWindow[] {
	const limitText = headerText(headers, `${prefix}ratelimit-limit`);
	const window: StatedWindow = {
		remaining: Number(leadingNumber(headerText(headers, `${prefix}ratelimit-remaining`))),
		resetAtMs: resetAt(headerText(headers, `${prefix}ratelimit-reset`), nowMs),
		limit: leadingNumber(limitText),
		windowMs: secondsAsMs(/;\s*w=(\d+)/.exec(limitText ?? '')?.[1]),
	};
	return isUsable(window) ? [window] : [];
}

/** Every window the answer states (empty when it states none, or nothing readable). */
export function readRateLimitHeaders(headers: Headers, nowMs: number): StatedWindow[] {
	return [
		...ietfWindows(headers, nowMs),
		...classicWindow(headers, '', nowMs),
		...classicWindow(headers, 'x-', nowMs),
	];
}
