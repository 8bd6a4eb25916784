/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import { importsOf as edgesOf, type SourceFile } from "../structure/import-graph";

/**
 * The layering rules README.md states, checked on the source text: route modules are leaves (no
 * domain code or object imports them; only the app's wiring does), and they reach D1 only through
 * the stores. The files are read at build time, as the import graph sees them.
 */
const sources = import.meta.glob<string>(["../../../src/**/*.ts", "../../../durable-objects/**/*.ts", "!**/*.test.ts"], {
	query: "?raw",
	import: "default",
	eager: true,
});
const files = Object.entries(sources).map(([key, text]) => ({ path: key.replace(/^(\.\.\/)+/, ""), text }));

/** The files a file imports, as the structure tests read the import graph. */
const importsOf = (file: SourceFile) => edgesOf(file).map((edge) => edge.to);

/** The app's wiring mounts the route modules; nothing else may import one. */
const WIRING = new Set(["src/app.ts", "src/index.ts"]);

describe("layers", () => {
	it("reads every source file", () => {
		expect(files.length).toBeGreaterThan(100);
		expect(files.map((f) => f.path)).toContain("src/routes/meetings.ts");
		expect(files.some((f) => f.path.startsWith("durable-objects/"))).toBe(true);
	});

	it("keeps route modules leaves: only the app's wiring imports from src/routes", () => {
		const offending = files
			.filter((f) => !f.path.startsWith("src/routes/") && !WIRING.has(f.path))
			.flatMap((f) =>
				importsOf(f)
					.filter((target) => target.startsWith("src/routes/"))
					.map((target) => `${f.path} → ${target}`),
			);
		expect(offending).toEqual([]);
	});

	it("keeps SQL out of src/routes: no raw statements, no drizzle instance of their own", () => {
		const routes = files.filter((f) => f.path.startsWith("src/routes/"));
		expect(routes.length).toBeGreaterThan(20);
		const offending = routes.flatMap((f) => [...f.text.matchAll(/\.prepare\(|\bdrizzle\(|\.DB\b/g)].map((m) => `${f.path}: ${m[0]}`));
		expect(offending).toEqual([]);
	});

	it("reaches D1 through db(env) from src/db: no other drizzle instance", () => {
		const offending = files.filter((f) => f.path !== "src/db/index.ts" && /\bdrizzle\(/.test(f.text)).map((f) => f.path);
		expect(offending).toEqual([]);
	});
});
