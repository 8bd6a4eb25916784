/**
 * The dashboard build (scripts/build-dashboard.mjs) runs at every `npm start`, `npm test` and
 * `npm run bench`, while another stack's `wrangler dev` may be serving dashboard/dist. A rebuild
 * with nothing new must leave that directory as it is: the same directory, the same files, none
 * rewritten. (It once removed and remade it, after which a running wrangler dev served 404s.)
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");
const served = path.join(root, "dashboard", "dist");

function snapshot(dir: string, prefix = ""): Record<string, number> {
	return Object.fromEntries(
		readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
			const file = path.join(dir, entry.name);
			return entry.isDirectory()
				? Object.entries(snapshot(file, path.join(prefix, entry.name)))
				: [[path.join(prefix, entry.name), statSync(file).mtimeMs]];
		}),
	);
}

describe("rebuilding the dashboard", () => {
	it("with nothing new keeps the served directory and every file in it untouched", () => {
		const build = () => execFileSync(process.execPath, [path.join(root, "scripts", "build-dashboard.mjs")], { cwd: root, stdio: "pipe" });
		build();
		const directory = statSync(served).ino;
		const files = snapshot(served);
		expect(Object.keys(files)).toEqual(
			expect.arrayContaining(["index.html", "_headers", path.join("assets", "app.js"), path.join("docs", "index.html")]),
		);

		build();
		expect(statSync(served).ino).toBe(directory);
		expect(snapshot(served)).toEqual(files);
	});
});
