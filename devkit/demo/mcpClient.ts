/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev code, not in the package n8n loads: node rules do not apply */
/**
 * The smallest MCP client that can drive n8n's MCP Server Trigger over Streamable HTTP:
 * JSON-RPC over POST, answers as JSON or as server-sent events. It stands in for the LLM
 * client, so the AI-tool example runs without a model.
 */

export interface McpTool {
	name: string;
	description?: string;
	inputSchema: { properties?: Record<string, unknown>; required?: string[] };
}

export interface McpToolResult {
	isError: boolean;
	/** The text content the tool returned (n8n sends the node output as JSON text). */
	text: string;
}

interface RpcAnswer {
	status: number;
	text: string;
	message?: { result?: Record<string, unknown>; error?: { message: string } };
}

export class McpClient {
	private sessionId: string | undefined;
	private nextId = 1;

	constructor(
		readonly url: string,
		private readonly bearerToken: string,
	) {}

	/** One JSON-RPC message; `token` overrides the client's (to try a wrong one). */
	async post(body: Record<string, unknown>, token = this.bearerToken): Promise<RpcAnswer> {
		const res = await fetch(this.url, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${token}`,
				'content-type': 'application/json',
				accept: 'application/json, text/event-stream',
				...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
			},
			body: JSON.stringify({ jsonrpc: '2.0', ...body }),
		});
		this.sessionId = res.headers.get('mcp-session-id') ?? this.sessionId;
		const text = await res.text();
		return { status: res.status, text, message: parseMessage(text) };
	}

	private async request(method: string, params: Record<string, unknown> = {}) {
		const answer = await this.post({ id: this.nextId++, method, params });
		if (answer.status !== 200 || !answer.message?.result) {
			const why = answer.message?.error?.message ?? answer.text.slice(0, 300);
			throw new Error(`MCP ${method} failed: HTTP ${answer.status} ${why}`);
		}
		return answer.message.result;
	}

	/**
	 * Publishing registers the trigger's webhook asynchronously in n8n 2.x, so the first
	 * requests can get 404; nothing runs on a 404, so waiting for registration is safe.
	 */
	async initialize(timeoutMs = 20_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		const params = {
			protocolVersion: '2025-03-26',
			capabilities: {},
			clientInfo: { name: 'lead-call-access-e2e', version: '1.0.0' },
		};
		for (;;) {
			const answer = await this.post({ id: this.nextId++, method: 'initialize', params });
			if (answer.status === 200 && answer.message?.result) break;
			if (answer.status !== 404 || Date.now() > deadline) {
				throw new Error(
					`MCP initialize failed: HTTP ${answer.status} ${answer.text.slice(0, 300)}`,
				);
			}
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
		await this.post({ method: 'notifications/initialized' });
	}

	async listTools(): Promise<McpTool[]> {
		return (await this.request('tools/list')).tools as McpTool[];
	}

	async callTool(name: string, args: Record<string, unknown>): Promise<McpToolResult> {
		const result = await this.request('tools/call', { name, arguments: args });
		const content = (result.content as Array<{ type: string; text?: string }>) ?? [];
		return {
			isError: result.isError === true,
			text: content.map((part) => part.text ?? '').join('\n'),
		};
	}
}

/** A JSON body, or the last `data:` line of an event stream. */
function parseMessage(text: string): RpcAnswer['message'] {
	const candidates = text.trim().startsWith('{')
		? [text]
		: text
				.split(/\r?\n/)
				.filter((line) => line.startsWith('data:'))
				.map((line) => line.slice(5));
	for (const candidate of candidates.reverse()) {
		try {
			return JSON.parse(candidate) as RpcAnswer['message'];
		} catch {
			// not JSON: try the previous event
		}
	}
	return undefined;
}
