import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { publicBaseUrl } from "../env";
import { errorResponse } from "../errors";
import { chargeCalls } from "../gateway/identity";
import { answerMcpRequest } from "../mcp/server";

/**
 * The MCP server over streamable HTTP (docs/mcp.md). The gateway has already checked the key
 * (X-API-Key, or `Authorization: Bearer` here). Stateless, so there is no SSE stream to open
 * with GET and no session to end with DELETE: both answer 405, as the MCP spec lets a server do.
 */
export const mcpRoutes = new Hono<AppEnv>();

mcpRoutes.post("/mcp", async (c) => {
	const identity = c.get("identity");
	const body = await jsonBody(c.req.raw);
	// A JSON-RPC batch runs each of its messages: each pays as a request, before any runs.
	if (Array.isArray(body)) await chargeCalls(c.env, identity.userId, body.length);
	return answerMcpRequest(c.req.raw, { env: c.env, identity, baseUrl: publicBaseUrl(c.env, c.req.raw) }, body);
});

/** The body as JSON, read once; undefined when it is not JSON (the SDK then answers its parse error). */
async function jsonBody(request: Request): Promise<unknown> {
	try {
		return JSON.parse(await request.clone().text());
	} catch {
		return undefined;
	}
}

const STATELESS = "this MCP server is stateless and answers POST only";

mcpRoutes.get("/mcp", (c) => errorResponse(c, 405, `Method Not Allowed: no event stream to open; ${STATELESS}`, { Allow: "POST" }));
mcpRoutes.delete("/mcp", (c) => errorResponse(c, 405, `Method Not Allowed: no session to end; ${STATELESS}`, { Allow: "POST" }));
