import { describe, expect, it } from "vitest";
import mcpDoc from "../../../docs/mcp.md?raw";
import { MCP_TOOLS } from "../../../src/mcp/tools";
import { tableRows } from "../docs/markdown-table";

describe("docs/mcp.md", () => {
	it("lists every tool with its REST route, that route's scopes and its arguments, as the code has them", () => {
		const documented = tableRows(mcpDoc, "mcp-tools").map(([tool, route, scopes, args]) => ({
			tool: tool?.replace(/`/g, ""),
			route,
			scopes,
			args: [...(args ?? "").matchAll(/`(\w+)\??`/g)].map((m) => m[1]).sort(),
		}));
		const code = MCP_TOOLS.map((t) => ({
			tool: t.name,
			route: `${t.route.method} ${t.route.path.replace(/:(\w+)/g, "{$1}")}`,
			scopes: t.scopes.join(", "),
			args: Object.keys(t.args.shape).sort(),
		}));
		expect(documented).toEqual(code);
	});
});
