import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { errorName } from "../error-text";
import { ApiError, type FieldError } from "../errors";

/**
 * How MCP tool calls answer: the result as JSON text (and as structuredContent), or a tool
 * error (`isError: true`) whose text is `{status, detail}`, the REST route's own answer.
 */

/** A failure a tool reports without a REST status (the agent's stream said why). */
export class ToolFailure extends Error {
	constructor(readonly detail: string) {
		super(detail);
	}
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export function toolResult(result: unknown): CallToolResult {
	return { content: [{ type: "text", text: JSON.stringify(result) }], ...(isRecord(result) ? { structuredContent: result } : {}) };
}

export function toolError(failure: { status?: number; detail: string | FieldError[]; retry_after_seconds?: number }): CallToolResult {
	return { isError: true, content: [{ type: "text", text: JSON.stringify(failure) }], structuredContent: failure };
}

/** What a tool's exception tells the caller: the REST answer for an ApiError, nothing internal otherwise. */
export function errorResult(err: unknown, tool: string): CallToolResult {
	if (err instanceof ApiError) {
		const retryAfter = Number(err.headers["Retry-After"]);
		return toolError({ status: err.status, detail: err.detail, ...(retryAfter > 0 ? { retry_after_seconds: retryAfter } : {}) });
	}
	if (err instanceof ToolFailure) return toolError({ detail: err.detail });
	console.error("mcp tool failed", tool, errorName(err));
	return toolError({ status: 500, detail: "Internal server error" });
}
