/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

/**
 * A hand-written source file over about 400 lines usually holds two ideas (the project's style), so
 * none may pass 400. Tests, generated files (the client's schema) and styles are
 * not held to it.
 */
const MAX_LINES = 400;

const sources = import.meta.glob<string>(
	[
		"../../../{src,durable-objects,bot-host,dashboard,scripts}/**/*.{ts,tsx,mts,js,mjs,cjs}",
		"../../../packages/client/src/**/*.ts",
		"!**/node_modules/**",
		"!**/dist/**",
		"!**/*.test.{ts,tsx}",
		"!**/*.min.js",
		"!../../../bot-host/test/**",
		"!../../../packages/client/src/schema.ts",
	],
	{ query: "?raw", import: "default", eager: true },
);
const files = Object.entries(sources).map(([key, text]) => ({ path: key.replace(/^(\.\.\/)+/, ""), lines: text.split("\n").length - 1 }));

describe("source file sizes", () => {
	it("reads every hand-written source file", () => {
		expect(files.length).toBeGreaterThan(400);
		expect(files.map((f) => f.path)).toEqual(
			expect.arrayContaining(["src/app.ts", "dashboard/src/main.tsx", "packages/client/src/client.ts"]),
		);
	});

	it(`keeps every hand-written source file at ${MAX_LINES} lines or fewer`, () => {
		const over = files.filter((f) => f.lines > MAX_LINES).map((f) => `${f.path}: ${f.lines}`);
		expect(over).toEqual([]);
	});
});
