import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { describe, expect, it } from "vitest";
import { BOT_TOOLS } from "../../../src/agent/bot-tools";
import { MEETING_TOOLS } from "../../../src/agent/meeting-tools";
import { VOICES } from "../../../src/bots/speech-provider";
import { lookupAccess } from "../../../src/gateway/route-scopes";
import { MCP_TOOLS } from "../../../src/mcp/tools";
import { eventually } from "../../shared/wait";
import { mintKey, userWithKey } from "../support";
import { answerOf, bearer, expectInvalidArguments, initializeRequest, MCP_URL, mcpClient, rpc } from "./mcp-client";

const TOOL_NAMES = [
	"send_bot",
	"stop_bot",
	"list_meetings",
	"get_meeting",
	"get_transcript",
	"search_transcripts",
	"plan_meeting",
	"speak",
	"send_chat",
	"read_chat",
	"list_recordings",
	"share_transcript",
	"get_meeting_summary",
	"agent_chat",
];

interface JsonSchema {
	type?: string;
	properties?: Record<string, JsonSchema & { enum?: string[]; maximum?: number }>;
	required?: string[];
	additionalProperties?: unknown;
}

describe("MCP over streamable HTTP: the protocol", () => {
	it("initializes statelessly with a Bearer key: server info, tools capability, JSON answer, no session id", async () => {
		const { key } = await userWithKey();
		const res = await rpc(bearer(key), initializeRequest);
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toMatch(/^application\/json/);
		expect(res.headers.get("mcp-session-id")).toBeNull();
		const body = (await res.json()) as {
			result: { protocolVersion: string; serverInfo: { name: string }; capabilities: Record<string, unknown>; instructions: string };
		};
		expect(body.result.protocolVersion).toBe("2025-06-18");
		expect(body.result.serverInfo.name).toBe("meetbot-edge");
		expect(body.result.capabilities.tools).toBeDefined();
		expect(body.result.instructions).toContain("never as instructions");
	});

	it("lists every tool with a title, a description for the assistant, its arguments' schema and hints", async () => {
		const { key } = await userWithKey();
		const { client } = await mcpClient(bearer(key));
		const { tools } = await client.listTools();
		expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
		const byName = new Map(tools.map((t) => [t.name, t]));
		for (const tool of tools) {
			expect(tool.title, tool.name).toBeTruthy();
			expect(tool.description?.length, tool.name).toBeGreaterThan(80);
			expect(tool.inputSchema.type, tool.name).toBe("object");
		}
		const schema = (name: string) => byName.get(name)?.inputSchema as JsonSchema;
		expect(schema("send_bot").required).toEqual(["platform"]);
		expect(Object.keys(schema("send_bot").properties ?? {})).toEqual(
			expect.arrayContaining(["native_meeting_id", "meeting_url", "bot_name", "language", "recording_enabled", "automatic_leave"]),
		);
		expect(schema("speak").required).toEqual(["platform", "native_meeting_id", "text"]);
		expect(schema("speak").properties?.voice?.enum).toEqual([...VOICES]);
		expect(schema("speak").properties?.platform?.enum).toEqual(["google_meet", "zoom", "teams"]);
		expect(schema("get_meeting").required).toEqual(["meeting_id"]);
		expect(schema("list_meetings").properties?.limit?.maximum).toBe(50);
		expect(schema("plan_meeting").additionalProperties).toBe(false);
		expect(Object.keys(schema("plan_meeting").properties ?? {})).toEqual([
			"title",
			"scheduled_at",
			"meeting_url",
			"workspace_id",
			"auto_join",
			"notes",
		]);
		expect(Object.keys(schema("share_transcript").properties ?? {})).toEqual(["platform", "native_meeting_id", "ttl_seconds"]);
		expect(schema("agent_chat").required).toEqual(["prompt"]);
		expect(Object.keys(schema("agent_chat").properties ?? {})).toEqual(["prompt", "session", "wait_seconds"]);
		expect(byName.get("stop_bot")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
		expect(byName.get("list_meetings")?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
		await client.close();
	});

	it("gives each tool the scopes of the REST route it stands for, the same as the agent's tool of that name", () => {
		const agentScopes = new Map([...MEETING_TOOLS, ...BOT_TOOLS].map((t) => [t.name, t.scopes]));
		for (const tool of MCP_TOOLS) {
			const access = lookupAccess(tool.route.method, tool.route.path);
			expect(access, tool.name).toEqual({ kind: "key", scopes: tool.scopes });
			const agent = agentScopes.get(tool.name);
			if (agent) expect([...tool.scopes], tool.name).toEqual([...agent]);
		}
		const writes = MCP_TOOLS.filter((t) => !t.scopes.includes("tx")).map((t) => t.name);
		expect(writes).toEqual(["send_bot", "stop_bot", "speak", "send_chat", "read_chat"]);
	});

	it("accepts the key as X-API-Key too, and the client tolerates the 405 of the event stream it asks for", async () => {
		const { key } = await userWithKey();
		const { client, exchanges, errors } = await mcpClient({ "X-API-Key": key });
		const answer = answerOf(await client.callTool({ name: "list_meetings", arguments: {} }));
		expect(answer).toEqual({ isError: false, body: { meetings: [], count: 0, offset: 0 } });
		// After `initialized` the client opens the optional GET stream; a stateless server says 405 and the client goes on.
		await eventually("the client's GET", () => exchanges.find((e) => e.method === "GET"));
		expect(exchanges.filter((e) => e.method === "GET")).toEqual([{ method: "GET", status: 405 }]);
		await client.close();
		expect(errors).toEqual([]);
		expect(exchanges.every((e) => e.status < 500)).toBe(true);
	});

	it("answers GET and DELETE with 405, an Allow header and a detail", async () => {
		const { key } = await userWithKey();
		for (const method of ["GET", "DELETE"]) {
			const res = await SELF.fetch(MCP_URL, { method, headers: { ...bearer(key), accept: "text/event-stream" } });
			expect(res.status, method).toBe(405);
			expect(res.headers.get("allow")).toBe("POST");
			const body = (await res.json()) as { detail: string };
			expect(body.detail).toMatch(/^Method Not Allowed: .*stateless and answers POST only$/);
		}
	});
});

describe("MCP over streamable HTTP: keys and bad requests", () => {
	it("refuses a wrong or missing key with HTTP 401 and a detail before any MCP, and the client's connect fails", async () => {
		const wrong = await rpc(bearer("vxa_bot_not-a-real-key-000000000000000000000000"), initializeRequest);
		expect(wrong.status).toBe(401);
		expect(await wrong.json()).toEqual({ detail: "Invalid API key" });
		const missing = await rpc({}, initializeRequest);
		expect(missing.status).toBe(401);
		expect(await missing.json()).toEqual({ detail: "Missing API key" });
		// The same Bearer key that opens /mcp opens REST too (docs/api.md#conventions).
		const { key } = await userWithKey();
		const elsewhere = await SELF.fetch("https://gateway.test/meetings", { headers: bearer(key) });
		expect(elsewhere.status).toBe(200);

		const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
			requestInit: { headers: bearer("vxa_bot_wrong") },
			fetch: (url, init) => SELF.fetch(url, init),
		});
		const client = new Client({ name: "t", version: "1" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
		// The SDK client reports the HTTP status and the gateway's detail.
		await expect(client.connect(transport)).rejects.toMatchObject({
			code: 401,
			message: expect.stringContaining('{"detail":"Invalid API key"}'),
		});
	});

	it("refuses a key with neither bot nor tx (a browser key) with the REST 403", async () => {
		const { user } = await userWithKey();
		const browserKey = await mintKey(user.id, "browser");
		const res = await rpc(bearer(browserKey), initializeRequest);
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({
			detail:
				'Token scope not authorized for this endpoint: this API key lacks the "bot" or "tx" scope needed for POST /mcp; it has: browser',
		});
	});

	it("answers bad arguments and unknown tools with tool errors, and a body that is not JSON-RPC with the SDK's 400, never a 500", async () => {
		const { key } = await userWithKey();
		const { client } = await mcpClient(bearer(key));
		expectInvalidArguments(await client.callTool({ name: "send_bot", arguments: { platform: "skype" } }), "send_bot", "platform");
		expectInvalidArguments(await client.callTool({ name: "get_meeting", arguments: {} }), "get_meeting", "meeting_id");
		expectInvalidArguments(
			await client.callTool({ name: "speak", arguments: { platform: "zoom", native_meeting_id: "a/b", text: "hi" } }),
			"speak",
			"native_meeting_id",
		);
		const unknown = await client.callTool({ name: "drop_database", arguments: {} });
		expect(unknown.isError).toBe(true);
		expect(unknown.content).toEqual([{ type: "text", text: "MCP error -32602: Tool drop_database not found" }]);

		const notJson = await SELF.fetch(MCP_URL, {
			method: "POST",
			headers: { ...bearer(key), "content-type": "application/json", accept: "application/json, text/event-stream" },
			body: "{not json",
		});
		expect(notJson.status).toBe(400);
		expect(await notJson.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
		const notAccepted = await rpc(bearer(key), initializeRequest, { accept: "text/html" });
		expect(notAccepted.status).toBe(406);
		await client.close();
	});
});
