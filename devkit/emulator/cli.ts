/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * `npm run emulator`: runs the emulator in the foreground for manual tries and for suites that
 * need it in another process.
 *
 *   --host H            bind address (default 127.0.0.1)
 *   --port N            API port (default: random)
 *   --file-port N       file host port (default: random)
 *   --rate-limit N      requests per window per key (default 60; 0 or "off" = unlimited)
 *   --window-ms N       window length in ms (default 60000)
 *   --algorithm A       sliding-log | fixed-window | token-bucket (default sliding-log)
 *   --burst N           token bucket capacity (default = rate limit)
 *   --headers H         rate-limit headers on every answer: x-ratelimit-delta | x-ratelimit-epoch | ratelimit | ietf (default none)
 *   --reset-rounding R  how those headers' Reset is rounded to whole seconds: up (default) | down | nearest
 *   --calls N           seeded calls (default 120)
 *   --pagination S      data-next_cursor | items-nextCursor | calls-next-token | results-next-url | array-link-header | data-page
 *                       | data-has_more | items-next-query | data-current_page | data-next_page_url
 *                       | array-skip (README: "Calls")
 *   --list-order O      newest-first (default) | oldest-first (new calls appended at the end)
 *   --time-field F      the field listed calls carry their time in (default created_at); "none" for no time
 *   --recording-bytes N size of each recording (default 32768)
 *   --recording-delay-ms N  how long a new call's recording stays pending (default 0)
 *   --pending-answer A  while pending: processing (200, no URL; default) | 202 | 404
 *   --file-names F      how the file host names recordings: by-call (default) | same (every file
 *                       recording.mp3) | content (addresses ending in /content, no file name)
 *   --content-type T    the Content-Type recordings are served with (default audio/mpeg)
 *   --no-record         keep counters only (long benchmark runs)
 *   --json              print one JSON line with the URLs and keys instead of the text banner
 */
import { DEMO_KEY_SCOPES } from './auth';
import { startEmulator } from './server';
import { EmulatorOptions, RateLimitConfig } from './types';

function parseArgs(argv: string[]): { options: EmulatorOptions; json: boolean } {
	const flags = new Map<string, string>();
	const switches = new Set<string>();
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (!arg.startsWith('--')) throw new Error(`unexpected argument: ${arg}`);
		const [name, inline] = arg.slice(2).split(/=(.*)/s);
		if (name === 'json' || name === 'no-record') switches.add(name);
		else if (inline !== undefined) flags.set(name, inline);
		else if (i + 1 < argv.length) flags.set(name, argv[++i]);
		else throw new Error(`--${name} needs a value`);
	}
	const read = new Set<string>();
	const text = <T extends string>(name: string): T | undefined => {
		read.add(name);
		return flags.get(name) as T | undefined;
	};
	const int = (name: string): number | undefined => {
		const raw = text(name);
		if (raw === undefined || /^\d+$/.test(raw)) return raw === undefined ? raw : Number(raw);
		throw new Error(`--${name} must be a non-negative integer, got ${raw}`);
	};
	const limit = text('rate-limit');
	const timeField = text('time-field');
	const rateLimit: RateLimitConfig = {
		limit: limit === undefined || limit === 'off' || limit === '0' ? 60 : int('rate-limit')!,
		windowMs: int('window-ms') ?? 60_000,
		algorithm: text('algorithm') ?? 'sliding-log',
		burst: int('burst'),
		headers: text('headers'),
		resetRounding: text('reset-rounding'),
	};
	const options: EmulatorOptions = {
		host: text('host'),
		port: int('port'),
		fileHostPort: int('file-port'),
		seedCalls: int('calls'),
		paginationStyle: text('pagination'),
		listOrder: text('list-order'),
		callTimeField: timeField === 'none' ? null : timeField,
		recordingBytes: int('recording-bytes'),
		recordingProcessing: {
			delayMs: int('recording-delay-ms'),
			pendingAnswer: text('pending-answer'),
		},
		recordingFileNames: text('file-names'),
		recordingContentType: text('content-type'),
		recordRequests: !switches.has('no-record'),
		rateLimit: limit === 'off' || limit === '0' ? false : rateLimit,
	};
	const unknown = [...flags.keys()].find((name) => !read.has(name));
	if (unknown) throw new Error(`unknown flag --${unknown}`);
	return { options, json: switches.has('json') };
}

async function main(): Promise<void> {
	const { options, json } = parseArgs(process.argv.slice(2));
	const emulator = await startEmulator(options);
	const { baseUrl, fileBaseUrl } = emulator;
	const limit = options.rateLimit;
	const banner = [
		'Lead & Call Access API emulator',
		`  Base URL:      ${baseUrl}`,
		`  File base URL: ${fileBaseUrl}`,
		`  Rate limit:    ${limit ? `${limit.limit} per ${limit.windowMs} ms per key (${limit.algorithm})` : 'off'}`,
		`  Control:       ${baseUrl}/__emulator/state`,
		'  Demo API keys:',
		...DEMO_KEY_SCOPES.map(
			({ key, scopes }) => `    ${key}  ${scopes.join(', ') || '(no scopes)'}`,
		),
		'Press Ctrl+C to stop.',
	];
	console.log(
		json ? JSON.stringify({ baseUrl, fileBaseUrl, keys: DEMO_KEY_SCOPES }) : banner.join('\n'),
	);
	let stopping = false;
	const shutdown = (signal: string): void => {
		if (stopping) return;
		stopping = true;
		emulator.stop().then(
			() => {
				if (!json) console.log(`Stopped (${signal}).`);
				process.exit(0);
			},
			(error) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => shutdown('SIGINT'));
	process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: Error) => {
	console.error(`emulator: ${error.message}`);
	process.exit(1);
});
