/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import architectureDoc from "../../../docs/architecture.md?raw";
import { tableRows } from "../docs/markdown-table";
import { cycles, edges, type ImportEdge, packagesOf, productFiles } from "./import-graph";

/**
 * docs/architecture.md, held against the code: every product file belongs to a part, every relative
 * import (values and types) is one the imports table allows or one the pending table lists, and no
 * imports form a cycle. A move that is not written down there fails here.
 */

/** A files pattern as a regular expression: `*` one path segment, `**` any number, `{a,b}` either. */
function patternOf(glob: string): RegExp {
	const source = glob
		.replace(/[.+^$()|[\]\\]/g, "\\$&")
		.replace(/\{([^}]*)\}/g, (_, names: string) => `(?:${names.split(",").join("|")})`)
		.replace(/\*\*/g, "\0")
		.replace(/\*/g, "[^/]*")
		.replaceAll("\0", ".*");
	return new RegExp(`^${source}$`);
}

const unquote = (cell: string) => cell.replace(/^`|`$/g, "");
const NONE = "—";

const parts = tableRows(architectureDoc, "parts").map(([name = "", files = ""]) => ({
	name: unquote(name),
	files: patternOf(unquote(files)),
}));
const OBJECT = "durable-objects/<object>";

/** The part a file belongs to: the first whose pattern matches. */
const partOf = (path: string) => parts.find((part) => part.files.test(path))?.name;

interface Allowed {
	/** Parts whose every module may be imported. */
	all: Set<string>;
	/** Parts of which only pure modules may be imported. */
	pure: Set<string>;
	types: Set<string>;
}

/** `` `a`, `b` (pure) `` → the parts named, and those marked pure. */
function cellParts(cell: string): { name: string; pure: boolean }[] {
	if (cell === NONE) return [];
	return cell.split(/,\s*/).map((item) => {
		const match = /^`([^`]+)`( \(pure\))?$/.exec(item.trim());
		if (!match) throw new Error(`docs/architecture.md imports table: cannot read "${item}"`);
		return { name: match[1] ?? "", pure: match[2] !== undefined };
	});
}

const allowed = new Map<string, Allowed>(
	tableRows(architectureDoc, "imports").map(([part = "", values = "", types = ""]) => {
		const named = cellParts(values);
		return [
			unquote(part),
			{
				all: new Set(named.filter((p) => !p.pure).map((p) => p.name)),
				pure: new Set(named.filter((p) => p.pure).map((p) => p.name)),
				types: new Set(cellParts(types).map((p) => p.name)),
			},
		];
	}),
);

const pending = new Set(tableRows(architectureDoc, "pending").map(([from = "", to = ""]) => `${unquote(from)} → ${unquote(to)}`));

const isPending = (edge: ImportEdge) => pending.has(`${edge.from} → ${edge.to}`);

const byPath = new Map(productFiles.map((file) => [file.path, file]));
const PURE_PACKAGES = new Set(["zod", "@hono/zod-openapi"]);

/** Pure: the file and everything it imports reach no binding, no `src/env.ts`, no package but zod. */
function impurity(path: string, seen = new Set<string>()): string | null {
	if (seen.has(path)) return null;
	seen.add(path);
	if (path === "src/env.ts") return path;
	const file = byPath.get(path);
	if (!file) return null;
	const foreign = packagesOf(file).find((name) => !PURE_PACKAGES.has(name));
	if (foreign) return `${path} imports ${foreign}`;
	for (const edge of edges.filter((e) => e.from === path)) {
		const why = impurity(edge.to, seen);
		if (why) return `${path} → ${why}`;
	}
	return null;
}

/** Why an import is not allowed, or null. */
function refusal(edge: ImportEdge): string | null {
	const from = partOf(edge.from);
	const to = partOf(edge.to);
	if (!from || !to) return "a file in no part";
	if (from === to) {
		if (from !== OBJECT || edge.from.split("/")[1] === edge.to.split("/")[1]) return null;
		return "another object's folder";
	}
	const rule = allowed.get(from);
	if (!rule) return `the part ${from} has no row in the imports table`;
	if (rule.all.has(to)) return null;
	if (rule.pure.has(to)) {
		const why = impurity(edge.to);
		return why ? `not pure: ${why}` : null;
	}
	if (edge.kind === "type" && rule.types.has(to)) return null;
	return `${from} may not import ${to}${edge.kind === "type" ? " (types)" : ""}`;
}

describe("docs/architecture.md against the imports", () => {
	it("reads the tables and every product file", () => {
		expect(parts.length).toBeGreaterThan(15);
		expect(productFiles.length).toBeGreaterThan(400);
		expect(edges.length).toBeGreaterThan(1500);
		expect(productFiles.map((f) => f.path)).toEqual(
			expect.arrayContaining(["src/env.ts", "bot-host/bot/session.ts", "dashboard/src/main.tsx"]),
		);
		expect(edges.some((e) => e.kind === "type")).toBe(true);
	});

	it("gives every part of the parts table a row of the imports table, and names only parts that exist", () => {
		const names = parts.map((p) => p.name);
		const tests = new Set(["bot-host/test", "test/receiver"]);
		expect([...allowed.keys()].sort()).toEqual(names.filter((n) => !tests.has(n)).sort());
		const named = [...allowed.values()].flatMap((rule) => [...rule.all, ...rule.pure, ...rule.types]);
		expect(named.filter((n) => !names.includes(n))).toEqual([]);
	});

	it("puts every product file in a part", () => {
		expect(productFiles.filter((f) => !partOf(f.path)).map((f) => f.path)).toEqual([]);
	});

	it("imports only files that exist", () => {
		expect(edges.filter((e) => !e.resolved).map((e) => `${e.from} → ${e.to}`)).toEqual([]);
	});

	it("allows every import by the imports table, or lists it as pending", () => {
		const refused = edges
			.filter((e) => !isPending(e))
			.flatMap((e) => {
				const why = refusal(e);
				return why ? [`${e.from} → ${e.to}: ${why}`] : [];
			});
		expect(refused).toEqual([]);
	});

	it("lists as pending only imports that are still there", () => {
		const present = new Set(edges.map((e) => `${e.from} → ${e.to}`));
		expect([...pending].filter((p) => !present.has(p))).toEqual([]);
	});

	it("has no import cycle, type imports included (pending imports aside)", () => {
		expect(
			cycles(
				productFiles.map((f) => f.path),
				edges.filter((e) => !isPending(e)),
			),
		).toEqual([]);
	});

	it("keeps the contract layer on zod alone: shapes, platforms and the bot channel import no other package", () => {
		const contract = new Set(["src/shapes", "src/platforms", "src/bot-channel"]);
		const offending = productFiles
			.filter((f) => contract.has(partOf(f.path) ?? ""))
			.flatMap((f) =>
				packagesOf(f)
					.filter((name) => name !== "zod")
					.map((name) => `${f.path}: ${name}`),
			);
		expect(offending).toEqual([]);
	});
});

describe("the structure test itself", () => {
	it("refuses what docs/architecture.md forbids", () => {
		const refused = (from: string, to: string, kind: ImportEdge["kind"] = "value") => refusal({ from, to, kind, resolved: true });
		expect(refused("src/meetings/meeting-store.ts", "durable-objects/meeting-room/index.ts", "type")).not.toBeNull();
		expect(refused("durable-objects/account/keys.ts", "durable-objects/live-feed/index.ts", "type")).toBe("another object's folder");
		expect(refused("src/meetings/meeting-store.ts", "src/routes/meetings.ts")).not.toBeNull();
		expect(refused("bot-host/bot/session.ts", "src/env.ts")).not.toBeNull();
		expect(refused("dashboard/src/main.tsx", "src/meetings/meeting-store.ts")).toMatch(/^not pure/);
		expect(refused("bot-host/sandbox/server.ts", "bot-host/drivers/zoom.ts")).not.toBeNull();
		expect(refused("durable-objects/account/keys.ts", "src/env.ts", "type")).toBeNull();
		expect(refused("dashboard/src/main.tsx", "src/agent/frames.ts")).toBeNull();
	});

	it("finds a cycle made of type imports", () => {
		const typeEdge = (from: string, to: string): ImportEdge => ({ from, to, kind: "type", resolved: true });
		expect(cycles(["a", "b", "c"], [typeEdge("a", "b"), typeEdge("b", "a"), typeEdge("b", "c")])).toEqual([["a", "b"]]);
	});
});
