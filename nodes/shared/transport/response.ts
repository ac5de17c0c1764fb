/** An API answer as the transport hands it on: status, headers, and the body parsed once. */
export interface ApiResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	/** Parsed JSON body; undefined when the body was empty or not JSON. */
	body: unknown;
	/** The body as text when it was not valid JSON (HTML error pages, truncated JSON...). */
	text?: string;
	/** The raw bytes, for operations whose body may be binary. */
	raw: Buffer;
}

function headerValue(headers: ApiResponse['headers'], name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
}

export function toApiResponse(raw: {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}): ApiResponse {
	const buffer = Buffer.isBuffer(raw.body)
		? raw.body
		: raw.body instanceof ArrayBuffer
			? Buffer.from(raw.body)
			: Buffer.from(typeof raw.body === 'string' ? raw.body : '');
	const headers: ApiResponse['headers'] = {};
	for (const [name, value] of Object.entries(raw.headers ?? {})) {
		headers[name.toLowerCase()] = value as string | string[] | undefined;
	}
	const response: ApiResponse = {
		statusCode: raw.statusCode,
		headers,
		body: undefined,
		raw: buffer,
	};
	const contentType = headerValue(headers, 'content-type') ?? '';
	const isBinary = /^(audio|video|image)\/|application\/octet-stream/i.test(contentType);
	if (buffer.length === 0 || isBinary) return response;
	const text = buffer.toString('utf8');
	try {
		response.body = JSON.parse(text);
	} catch {
		response.text = text;
	}
	return response;
}
