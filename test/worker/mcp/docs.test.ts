import { describe, expect, it } from "vitest";
import mcpDoc from "../../../docs/mcp.md?raw";
import { MCP_TOOLS } from "../../../src/mcp/tools";

/** The rows of the table between `<!-- name:start -->` and `<!-- name:end -->`, header and rule dropped. */
function tableRows(doc: string, name: string): string[][] {
	const start = doc.indexOf(`<!-- ${name}:start -->`);
	const end = doc.indexOf(`<!-- ${name}:end -->`);
	expect(end).toBeGreaterThan(start);
	expect(start).toBeGreaterThanOrEqual(0);
	return doc
		.slice(start, end)
		.split("\n")
		.filter((line) => line.startsWith("|"))
		.slice(2)
		.map((line) =>
			line
				.slice(1, -1)
				.split("|")
				.map((cell) => cell.trim()),
		);
}

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
