/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

/**
 * The sandbox pages' runtime is split by idea (automation, voices, media, the meeting's API) but
 * served as one script from its parts: every part is listed, in an order that works. The size rule
 * that split it is test/unit/structure/sizes.test.ts.
 */
const sources = import.meta.glob<string>(
	["../../../bot-host/**/*.ts", "../../../bot-host/**/*.js", "!**/test/**", "!**/*.test.ts", "!**/*.min.js", "!**/node_modules/**"],
	{ query: "?raw", import: "default", eager: true },
);
const files = Object.entries(sources).map(([key, text]) => ({ path: key.replace(/^(\.\.\/)+/, ""), text }));

describe("the sandbox pages' runtime", () => {
	it("reads the bot host's sources", () => {
		expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(["bot-host/bot/session.ts", "bot-host/sandbox/pages/runtime.js"]));
	});

	it("serves every part of the sandbox pages' runtime (sandbox/server.ts RUNTIME_PARTS)", () => {
		const server = files.find((f) => f.path === "bot-host/sandbox/server.ts")?.text ?? "";
		const listed = [...(/RUNTIME_PARTS = \[([^\]]*)\]/.exec(server)?.[1] ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]);
		const parts = files.filter((f) => /^bot-host\/sandbox\/pages\/runtime[^/]*\.js$/.test(f.path)).map((f) => f.path.split("/").pop());
		expect(listed.toSorted()).toEqual(parts.toSorted());
		// runtime.js publishes window.Sandbox from what the others declare: it comes last.
		expect(listed.at(-1)).toBe("runtime.js");
	});
});
