import { Hono } from "hono";
import type { AppEnv } from "../app-env";

/** The MCP server over streamable HTTP (docs/mcp.md). */
export const mcpRoutes = new Hono<AppEnv>();
