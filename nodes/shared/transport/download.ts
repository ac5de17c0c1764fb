import type { IBinaryData } from 'n8n-workflow';

import type { RunContext } from '../context';
import type { RequestPolicy } from './retry';
import type { DownloadEnd } from '../errors';
import { downloadError, downloadFailure, networkErrorCode } from '../errors';
import { isRetryableStatus, retrying } from './retry';

export interface DownloadedFile {
	stream: NodeJS.ReadableStream;
	contentType: string | undefined;
	contentDisposition: string | undefined;
}

export interface SignedDownload {
	url: () => string;
	/** Called once when the file host refuses the URL (expired): should fetch a fresh one. */
	refreshUrl: () => Promise<void>;
	/** Consumes the stream (n8n's binary data service streams it to its store). */
	store: (file: DownloadedFile) => Promise<IBinaryData>;
	policy: RequestPolicy;
}

async function readErrorText(stream: unknown): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of stream as AsyncIterable<Buffer>) {
			chunks.push(Buffer.from(chunk));
			size += chunk.length;
			if (size > 2048) break;
		}
	} catch {
		// the error text is only a courtesy
	}
	return Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200);
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	return typeof value === 'string' ? value : undefined;
}

/** One try: the file stored, or what stopped it (its status, or no whole file). */
type Try =
	| {
			statusCode: number;
			headers: Record<string, unknown>;
			stored?: IBinaryData;
			hostSaid?: string;
	  }
	| { networkErrorCode: string; failure: string };

/**
 * Downloads a signed URL with a plain request: no credential and no Authorization header,
 * since signed-URL hosts reject a second auth mechanism and the API key must never leave
 * the API's host. Retries transient failures and cut-off bodies (transport/retry.ts decides);
 * refreshes an expired URL once.
 */
export async function downloadSignedFile(
	this: RunContext,
	download: SignedDownload,
): Promise<IBinaryData> {
	const tryOnce = async (): Promise<Try> => {
		let response: { statusCode: number; headers: Record<string, unknown>; body: unknown };
		try {
			response = await this.helpers.httpRequest({
				method: 'GET',
				url: download.url(),
				encoding: 'stream',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				timeout: download.policy.timeoutMs,
			});
		} catch (error) {
			const code = networkErrorCode(error);
			return {
				networkErrorCode: code,
				failure: `The recording download failed: ${downloadFailure(code)}`,
			};
		}
		const { statusCode, headers } = response;
		if (statusCode < 200 || statusCode >= 300) {
			return { statusCode, headers, hostSaid: await readErrorText(response.body) };
		}
		const stream = response.body as NodeJS.ReadableStream & {
			complete?: boolean;
			readableAborted?: boolean;
		};
		try {
			const stored = await download.store({
				stream,
				contentType: header(headers, 'content-type')?.split(';')[0].trim(),
				contentDisposition: header(headers, 'content-disposition'),
			});
			if (stream.complete === false || stream.readableAborted === true) {
				throw new Error('the download was cut off before the end of the file');
			}
			return { statusCode, headers, stored };
		} catch (error) {
			// A body cut off midway has no code of its own: retried like any unknown network failure.
			const failure = `The recording download was cut off (${(error as Error).message})`;
			return { networkErrorCode: 'UNKNOWN', failure };
		}
	};

	let refreshed = false;
	const attempt = async (): Promise<Try> => {
		const result = await tryOnce();
		// Signed URLs expire: the first refusal gets a fresh URL and one more try, not a retry.
		if ('statusCode' in result && [400, 401, 403].includes(result.statusCode) && !refreshed) {
			refreshed = true;
			await download.refreshUrl();
			return await tryOnce();
		}
		return result;
	};
	const { outcome, gaveUp } = await retrying(this, attempt, download.policy);
	if (gaveUp === undefined && 'stored' in outcome && outcome.stored) return outcome.stored;
	const { statusCode } = outcome as { statusCode?: number };
	const end: DownloadEnd =
		'failure' in outcome
			? { failure: outcome.failure }
			: {
					statusCode: statusCode!,
					hostSaid: outcome.hostSaid || undefined,
					temporary: statusCode === 429 || isRetryableStatus(statusCode!),
				};
	throw downloadError(this.getNode(), end, gaveUp?.attempts ?? 1);
}
