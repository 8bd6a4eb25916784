// Builds the dashboard (dashboard/src, Preact) into dashboard/dist, which wrangler serves as
// the Worker's static assets at `/` (wrangler.toml [assets]). Run by `npm start`, `npm test`
// and `npm run bench` before anything else, so a fresh clone needs no extra step.
// `@meetbot/client` resolves to its sources (packages/client/src) through dashboard/tsconfig.json's
// `paths`, which esbuild follows as tsc does: the dashboard needs no client build first, and only
// the parts it uses (the live feed, types) end up in the bundle.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "dashboard");
const out = path.join(source, "dist");

export async function buildDashboard({ minify = true } = {}) {
	rmSync(out, { recursive: true, force: true });
	mkdirSync(path.join(out, "assets"), { recursive: true });
	await build({
		entryPoints: { app: path.join(source, "src", "main.tsx") },
		outdir: path.join(out, "assets"),
		bundle: true,
		format: "esm",
		target: "es2022",
		minify,
		sourcemap: false,
		jsx: "automatic",
		jsxImportSource: "preact",
		loader: { ".css": "css" },
		logLevel: "warning",
		legalComments: "none",
	});
	copyFileSync(path.join(source, "index.html"), path.join(out, "index.html"));
	copyFileSync(path.join(source, "_headers"), path.join(out, "_headers"));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildDashboard();
