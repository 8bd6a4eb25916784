import { z } from "@hono/zod-openapi";
import type { ToolDefinition } from "../agent/tool-definition";
import type { Env } from "../env";
import type { Scope } from "../gateway/api-keys";
import type { Identity } from "../gateway/identity";
import { lookupAccess } from "../gateway/route-scopes";

/** Whom an MCP tool call acts for: the key's identity, and the origin links are made under. */
export interface McpCall {
	env: Env;
	identity: Identity;
	/** PUBLIC_BASE_URL, else the origin of the /mcp request (as the REST routes make links). */
	baseUrl: string;
}

/** The REST route a tool stands for: its scopes are that route's, read from ROUTE_ACCESS. */
export interface RestRoute {
	method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
	/** As ROUTE_ACCESS writes it, `:param` for a path parameter. */
	path: string;
}

export interface McpTool {
	name: string;
	title: string;
	/** For the assistant that picks the tool: what it does, and what each argument means. */
	description: string;
	/** The arguments: the same zod schema the REST route (or the agent's tool) validates with. */
	args: z.ZodObject;
	route: RestRoute;
	/** The key scopes the route accepts: any one of them reaches the tool. */
	scopes: readonly Scope[];
	/** Reads only (MCP's readOnlyHint); a tool that is not may change or end something. */
	readOnly: boolean;
	/** Ends something that cannot be undone (MCP's destructiveHint), such as a bot in a meeting. */
	destructive: boolean;
	run(call: McpCall, args: Record<string, unknown>): Promise<unknown>;
}

/** The scopes ROUTE_ACCESS gives a route; a tool may only stand for a route that takes a key. */
export function routeScopes(route: RestRoute): readonly Scope[] {
	const access = lookupAccess(route.method, route.path);
	if (access?.kind !== "key") throw new Error(`MCP tool route ${route.method} ${route.path} takes no API key`);
	return access.scopes;
}

interface ToolText {
	title: string;
	description: string;
	route: RestRoute;
	readOnly: boolean;
	destructive?: boolean;
}

/** A tool whose arguments and work are its own (a service function the REST route calls too). */
export function mcpTool<S extends z.ZodObject>(
	text: ToolText & { name: string; args: S; run(call: McpCall, args: z.output<S>): Promise<unknown> },
): McpTool {
	return {
		...text,
		destructive: text.destructive ?? false,
		scopes: routeScopes(text.route),
		// The SDK has parsed the arguments with `args` before the tool runs.
		run: (call, args) => text.run(call, args as z.output<S>),
	};
}

/**
 * A tool the agent already has (src/agent/*-tools.ts): its schema and body as they are, so the
 * agent and MCP cannot drift apart; only the words for the assistant and the route are MCP's.
 */
export function fromAgentTool(definition: ToolDefinition<z.ZodType>, text: ToolText): McpTool {
	// MCP lists a tool's arguments as one JSON object schema.
	if (!(definition.args instanceof z.ZodObject)) throw new Error(`The agent's ${definition.name} does not take an object`);
	return {
		...text,
		name: definition.name,
		destructive: text.destructive ?? false,
		args: definition.args,
		scopes: routeScopes(text.route),
		async run(call, args) {
			const reply = await definition.run(call.env, { userId: call.identity.userId, files: null }, args);
			return reply.result;
		},
	};
}
