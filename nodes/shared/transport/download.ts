import type { IBinaryData } from 'n8n-workflow';

import type { RunContext } from '../context';
import type { RequestPolicy } from './index';
import { pause } from './index';
import { downloadError, downloadFailure, networkErrorCode } from '../errors';
import { decideRetry, isRetryableStatus, newRetryState } from './retryPolicy';

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

/**
 * Downloads a signed URL with a plain request: no credential and no Authorization header,
 * since signed-URL hosts reject a second auth mechanism and the API key must never leave
 * the API's host. Retries transient failures and cut-off bodies; refreshes an expired URL once.
 */
export async function downloadSignedFile(
	this: RunContext,
	download: SignedDownload,
): Promise<IBinaryData> {
	const node = this.getNode();
	const retries = newRetryState();
	let refreshed = false;

	for (;;) {
		let response: { statusCode: number; headers: Record<string, unknown>; body: unknown };
		let failure: string | undefined;
		// Cut-off bodies have no code of their own: retried like any unknown network failure.
		let failureCode = 'UNKNOWN';
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
			response = { statusCode: 0, headers: {}, body: undefined };
			failureCode = networkErrorCode(error);
			failure = `The recording download failed: ${downloadFailure(failureCode)}`;
		}

		const { statusCode, headers } = response;
		if (failure === undefined && statusCode >= 200 && statusCode < 300) {
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
				return stored;
			} catch (error) {
				// A body cut off midway is a network failure like any other: retried.
				failure = `The recording download was cut off (${(error as Error).message})`;
			}
		}

		const text = failure === undefined ? await readErrorText(response.body) : '';
		if (failure === undefined && [400, 401, 403].includes(statusCode) && !refreshed) {
			refreshed = true;
			await download.refreshUrl();
			continue;
		}
		const decision = decideRetry(
			failure === undefined ? { statusCode, headers } : { networkErrorCode: failureCode },
			retries,
			download.policy,
			Date.now(),
		);
		if (decision.action === 'retry') {
			await pause.call(this, decision.waitMs);
			continue;
		}
		const attempts = decision.action === 'fail' ? decision.attempts : 1;
		const tries = attempts === 1 ? '' : ` (${attempts} attempts)`;
		const again = 'run it again later; the recording stays on the service';
		if (failure !== undefined) throw downloadError(node, `${failure}${tries}: ${again}`);
		throw downloadError(
			node,
			statusCode === 403
				? `The file host refused the recording's download link, even a fresh one (403): run it again later; if it keeps failing, ask the service why`
				: isRetryableStatus(statusCode) || statusCode === 429
					? `The recording's file host is unavailable (${statusCode})${tries}: ${again}`
					: `The recording's file host refused the download (${statusCode}): run it again; if it keeps failing, ask the service why`,
			text ? `The file host said: ${text}` : undefined,
			statusCode,
		);
	}
}
