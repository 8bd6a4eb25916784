// Shared by the start, test and bench commands: they must work on a fresh clone with only
// Node and npm, so they install what is missing themselves and then re-run under the Node 22
// that the `node` devDependency puts in node_modules/.bin (current wrangler refuses Node 20).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const bin = (name) => path.join(root, "node_modules", ".bin", name);

function log(message) {
	process.stderr.write(`[setup] ${message}\n`);
}

/** Installs npm packages when node_modules is missing or older than the lockfile. */
export function ensureNodeModules() {
	const marker = path.join(root, "node_modules", ".package-lock.json");
	const lock = path.join(root, "package-lock.json");
	if (existsSync(marker) && existsSync(bin("wrangler")) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
	// `npm install`, not `npm ci`: the lockfile holds only the platform packages this registry
	// serves, which npm ci refuses as "missing"; install still follows the lockfile's versions.
	log("installing npm packages…");
	execFileSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
}

/** Re-executes the current script under Node 22 from node_modules when running on an older Node. */
export function ensureNode22() {
	const major = Number(process.versions.node.split(".")[0]);
	if (major >= 22) return;
	const node = bin("node");
	if (!existsSync(node)) throw new Error("node_modules/.bin/node is missing; npm install did not install the node package");
	const result = spawnSync(node, process.argv.slice(1), {
		stdio: "inherit",
		env: { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH}` },
	});
	process.exit(result.status ?? 1);
}

/** Debian packages the bot host needs (Chromium, espeak-ng for speech, sox for audio checks). */
export const DEBIAN_PACKAGES = [
	["chromium", "/usr/bin/chromium"],
	["espeak-ng", "/usr/bin/espeak-ng"],
	["sox", "/usr/bin/sox"],
];

export function ensureDebianPackages() {
	const missing = DEBIAN_PACKAGES.filter(([, file]) => !existsSync(file)).map(([pkg]) => pkg);
	if (missing.length === 0) return;
	if (process.getuid?.() !== 0) {
		log(`missing Debian packages: ${missing.join(", ")}; install them with: sudo apt-get install -y ${missing.join(" ")}`);
		return;
	}
	log(`installing Debian packages: ${missing.join(", ")}…`);
	execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
	execFileSync("apt-get", ["install", "-y", "-qq", ...missing], {
		stdio: "inherit",
		env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
	});
}

export function prepare() {
	ensureNodeModules();
	ensureNode22();
}
