/**
 * The client loads `ws` (Node 20's WebSocket) only at run time, by a name bundlers do not follow,
 * so a browser or Workers bundle never contains it: checked on a bundle of the client itself and
 * on the dashboard's real bundle (scripts/build-dashboard.mjs, which `npm test` runs first).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const REPO = path.resolve(import.meta.dirname, "../../..");

/** Strings of ws's own sources that survive minification: its handshake GUID and its browser stub's error. */
const WS_MARKERS = ["258EAFA5-E914-47DA-95CA-C5AB0DC85B11", "ws does not work in the browser"];
/** The client's own words for a runtime with neither: present, so the live feed's fallback code was bundled. */
const FALLBACK_MESSAGE = "this runtime has no global WebSocket (Node 20 has none)";

describe("bundles of the client for browsers and Workers", () => {
	it("leave ws out of a browser bundle of @meetbot/client", async () => {
		const result = await build({
			entryPoints: [path.join(REPO, "packages", "client", "src", "index.ts")],
			bundle: true,
			write: false,
			metafile: true,
			format: "esm",
			platform: "browser",
			conditions: ["workerd", "worker", "browser"],
			minify: true,
			logLevel: "silent",
		});
		const inputs = Object.keys(result.metafile.inputs);
		expect(inputs).toContain("packages/client/src/live.ts");
		expect(inputs.filter((file) => file.includes("node_modules"))).toEqual([]);
		const code = result.outputFiles.map((f) => f.text).join("\n");
		expect(code).toContain(FALLBACK_MESSAGE);
		for (const marker of WS_MARKERS) expect(code).not.toContain(marker);
	});

	it("leave ws out of the dashboard's built bundle", () => {
		const bundle = path.join(REPO, "dashboard", "dist", "assets", "app.js");
		if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run node scripts/build-dashboard.mjs`);
		const code = readFileSync(bundle, "utf8");
		expect(code).toContain(FALLBACK_MESSAGE);
		for (const marker of WS_MARKERS) expect(code).not.toContain(marker);
	});
});
