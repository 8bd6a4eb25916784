// Builds the dashboard (dashboard/src, Preact) into dashboard/dist, which wrangler serves as
// the Worker's static assets at `/` (wrangler.toml [assets]). Run by `npm start`, `npm test`
// and `npm run bench` before anything else, so a fresh clone needs no extra step.
// `@meetbot/client` resolves to its sources (packages/client/src) through dashboard/tsconfig.json's
// `paths`, which esbuild follows as tsc does: the dashboard needs no client build first, and only
// the parts it uses (the live feed, types) end up in the bundle.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "dashboard");
const served = path.join(source, "dist");
/** Where builds are made before they are brought into `dist`: one directory each, as two may run at once. */
const STAGING_PREFIX = ".dist-next-";

/**
 * `/docs`: Swagger UI (swagger-ui-dist, Apache-2.0) rendering the gateway's /openapi.json. Only
 * the files the page loads are copied, with the licence; the page and its start-up script are
 * ours (dashboard/docs), since the package's own index.html starts it with an inline script.
 */
const SWAGGER_UI_FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"];
const DOCS_PAGE_FILES = ["index.html", "docs.js", "docs.css"];

function copyApiReference(out) {
	const swaggerUi = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
	const docs = path.join(out, "docs");
	mkdirSync(docs, { recursive: true });
	for (const file of SWAGGER_UI_FILES) copyFileSync(path.join(swaggerUi, file), path.join(docs, file));
	for (const file of DOCS_PAGE_FILES) copyFileSync(path.join(source, "docs", file), path.join(docs, file));
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir, prefix = "") {
	if (!existsSync(dir)) return [];
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory() ? filesUnder(path.join(dir, entry.name), path.join(prefix, entry.name)) : [path.join(prefix, entry.name)],
	);
}

/**
 * Brings a build into the served directory in place: only files whose bytes changed are written, and
 * files the build no longer has are removed, the directory itself never. A running `wrangler dev`
 * (another `npm start`, or the test suite's) watches it: a directory removed and made again under a
 * watcher can leave it serving nothing, so a rebuild with nothing new changes nothing at all.
 */
function syncInto(from, to) {
	const built = new Set(filesUnder(from));
	for (const file of filesUnder(to)) if (!built.has(file)) rmSync(path.join(to, file));
	for (const file of built) {
		const bytes = readFileSync(path.join(from, file));
		const target = path.join(to, file);
		if (existsSync(target) && readFileSync(target).equals(bytes)) continue;
		mkdirSync(path.dirname(target), { recursive: true });
		writeFileSync(target, bytes);
	}
}

export async function buildDashboard({ minify = true } = {}) {
	const out = mkdtempSync(path.join(source, STAGING_PREFIX));
	try {
		await stage(out, minify);
		mkdirSync(served, { recursive: true });
		syncInto(out, served);
	} finally {
		rmSync(out, { recursive: true, force: true });
	}
}

/** The whole build into `out`: the app bundle, its page and headers, and the API reference. */
async function stage(out, minify) {
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
	copyApiReference(out);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildDashboard();
