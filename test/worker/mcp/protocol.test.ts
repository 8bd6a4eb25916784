import { describe, expect, it } from "vitest";
import { call, userWithKey } from "../support";
import { answerOf, bearer, initializeRequest, mcpClient, rpc } from "./mcp-client";

describe("MCP over streamable HTTP: the protocol", () => {
	it("initializes statelessly with a Bearer key: server info, tools capability, no session id", async () => {
		const { key } = await userWithKey();
		const res = await rpc(bearer(key), initializeRequest);
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toMatch(/^application\/json/);
		expect(res.headers.get("mcp-session-id")).toBeNull();
		const body = (await res.json()) as { result: { serverInfo: { name: string }; capabilities: Record<string, unknown> } };
		expect(body.result.serverInfo.name).toBe("meetbot-edge");
		expect(body.result.capabilities.tools).toBeDefined();
	});

	it("lists the tools through the official client", async () => {
		const { key } = await userWithKey();
		const { client, errors } = await mcpClient(bearer(key));
		const { tools } = await client.listTools();
		expect(tools.map((t) => t.name)).toContain("send_bot");
		expect(errors).toEqual([]);
		const answer = answerOf(await client.callTool({ name: "list_meetings", arguments: {} }));
		expect(answer).toEqual({ isError: false, body: { meetings: [], count: 0, offset: 0 } });
		await client.close();
	});
});
