/**
 * The smallest MCP client that can drive n8n's MCP Server Trigger over Streamable HTTP:
 * JSON-RPC over POST, answers as JSON or as server-sent events. It stands in for the LLM
 * client, so the AI-tool example runs without a model.
 */
import { sleep } from 'n8n-workflow';

export interface McpTool {
	name: string;
	description?: string;
	inputSchema: { properties?: Record<string, unknown>; required?: string[] };
}

type Message = { result?: Record<string, unknown>; error?: { message: string } };

/** A JSON body, or the last `data:` line of an event stream that is JSON. */
function parseMessage(text: string): Message | undefined {
	const events = text.split(/\r?\n/).filter((line) => line.startsWith('data:'));
	const candidates = text.trim().startsWith('{') ? [text] : events.map((line) => line.slice(5));
	for (const candidate of candidates.reverse()) {
		try {
			return JSON.parse(candidate) as Message;
		} catch {
			// not JSON: try the previous event
		}
	}
	return undefined;
}

export class McpClient {
	private sessionId: string | undefined;
	private nextId = 1;

	constructor(
		readonly url: string,
		private readonly bearerToken: string,
	) {}

	/** One JSON-RPC message; `token` overrides the client's (to try a wrong one). */
	async post(body: Record<string, unknown>, token = this.bearerToken) {
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

	/**
	 * A request and its result. Publishing registers the trigger's webhook asynchronously in n8n
	 * 2.x, so `initialize` may get 404 at first; nothing runs on a 404, so waiting is safe.
	 */
	private async request(method: string, params: Record<string, unknown> = {}, retryMs = 0) {
		const deadline = Date.now() + retryMs;
		for (;;) {
			const answer = await this.post({ id: this.nextId++, method, params });
			const result = answer.status === 200 ? answer.message?.result : undefined;
			if (result) return result;
			if (answer.status !== 404 || Date.now() >= deadline) {
				const why = answer.message?.error?.message ?? answer.text.slice(0, 300);
				throw new Error(`MCP ${method} failed: HTTP ${answer.status} ${why}`);
			}
			await sleep(200);
		}
	}

	async initialize(): Promise<void> {
		const clientInfo = { name: 'lead-call-access-e2e', version: '1.0.0' };
		const params = { protocolVersion: '2025-03-26', capabilities: {}, clientInfo };
		await this.request('initialize', params, 20_000);
		await this.post({ method: 'notifications/initialized' });
	}

	async listTools(): Promise<McpTool[]> {
		return (await this.request('tools/list')).tools as McpTool[];
	}

	/** The tool's result: whether it is an error, and its text (n8n sends the output as JSON). */
	async callTool(name: string, args: Record<string, unknown>) {
		const result = await this.request('tools/call', { name, arguments: args });
		const content = (result.content as Array<{ type: string; text?: string }>) ?? [];
		return {
			isError: result.isError === true,
			text: content.map((part) => part.text ?? '').join('\n'),
		};
	}
}
