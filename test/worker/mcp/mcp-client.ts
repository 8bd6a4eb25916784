import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { expect } from "vitest";

export const MCP_URL = "https://gateway.test/mcp";

/** What reached the Worker from the client, and how it answered. */
export interface Exchange {
	method: string;
	status: number;
}

/**
 * The official MCP client over streamable HTTP, its requests handed to the Worker. `headers`
 * carry the key as an MCP client sends it (Authorization: Bearer) or as X-API-Key.
 */
export async function mcpClient(headers: Record<string, string>) {
	const exchanges: Exchange[] = [];
	const errors: Error[] = [];
	const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
		requestInit: { headers },
		fetch: async (url, init) => {
			const res = await SELF.fetch(url, init);
			exchanges.push({ method: init?.method ?? "GET", status: res.status });
			return res;
		},
	});
	// ajv (the client's default) cannot compile in workerd either.
	const client = new Client({ name: "meetbot-worker-test", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
	client.onerror = (err) => errors.push(err);
	await client.connect(transport);
	return { client, exchanges, errors };
}

/** Headers for an MCP client using a key the way MCP clients send one. */
export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** A tool's answer: its JSON text parsed, and whether it is a tool error. */
export function answerOf<T = Record<string, unknown>>(result: unknown): { isError: boolean; body: T } {
	const r = result as CallToolResult;
	const text = textOf(r);
	if (r.structuredContent) expect(JSON.parse(text)).toEqual(r.structuredContent);
	return { isError: r.isError === true, body: JSON.parse(text) as T };
}

/** The one text content of a tool's answer. */
export function textOf(result: unknown): string {
	const r = result as CallToolResult;
	expect(r.content).toHaveLength(1);
	const first = r.content[0];
	if (first?.type !== "text") throw new Error(`no text content: ${JSON.stringify(r)}`);
	return first.text;
}

/**
 * Arguments the tool's schema refuses: the SDK answers before the tool runs, with a tool error
 * naming the tool and the field.
 */
export function expectInvalidArguments(result: unknown, tool: string, field: string): void {
	expect((result as CallToolResult).isError).toBe(true);
	const text = textOf(result);
	expect(text.startsWith(`MCP error -32602: Input validation error: Invalid arguments for tool ${tool}: `), text).toBe(true);
	expect(text).toContain(field);
}

/** A raw JSON-RPC POST to /mcp, for what the client would not send. */
export function rpc(headers: Record<string, string>, body: unknown, extra: Record<string, string> = {}) {
	return SELF.fetch(MCP_URL, {
		method: "POST",
		headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers, ...extra },
		body: JSON.stringify(body),
	});
}

export const initializeRequest = {
	jsonrpc: "2.0",
	id: 1,
	method: "initialize",
	params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
