// Shared by the start, test and bench commands: they must work on a fresh clone with only
// Node and npm, so they install what is missing themselves and then re-run under the Node 22
// that the `node` devDependency puts in node_modules/.bin (current wrangler refuses Node 20).
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const bin = (name) => path.join(root, "node_modules", ".bin", name);

function log(message) {
	process.stderr.write(`[setup] ${message}\n`);
}

/** Where an install records the lockfile it installed (its SHA-256), inside node_modules so git never sees it. */
const INSTALLED_LOCK = path.join("node_modules", ".installed-lockfile.sha256");

/**
 * Whether node_modules must be installed: it lacks wrangler, or it was installed from another
 * lockfile than today's. The lockfile's content decides, not its time: a checkout that only
 * touched the file (a branch switched there and back) reinstalls nothing. node_modules from before
 * the record was kept falls back to npm's own rule (its hidden lockfile no older than the lockfile).
 */
export function installNeeded({ hasWrangler, lockHash, installedHash, hiddenLockNewer }) {
	if (!hasWrangler) return true;
	if (installedHash !== null) return installedHash !== lockHash;
	return !hiddenLockNewer;
}

/** Installs npm packages when node_modules is missing or was installed from another lockfile. */
export function ensureNodeModules() {
	const hiddenLock = path.join(root, "node_modules", ".package-lock.json");
	const lock = path.join(root, "package-lock.json");
	const installed = path.join(root, INSTALLED_LOCK);
	const lockHash = createHash("sha256").update(readFileSync(lock)).digest("hex");
	const needed = installNeeded({
		hasWrangler: existsSync(bin("wrangler")),
		lockHash,
		installedHash: existsSync(installed) ? readFileSync(installed, "utf8").trim() : null,
		hiddenLockNewer: existsSync(hiddenLock) && statSync(hiddenLock).mtimeMs >= statSync(lock).mtimeMs,
	});
	if (!needed) return;
	// `npm ci`: exactly the lockfile, which it never rewrites, so a fresh clone stays clean.
	log("installing npm packages…");
	execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
	writeFileSync(installed, `${lockHash}\n`);
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

/**
 * Debian packages the bot host needs: Chromium (one per bot; without it no bot starts), Xvfb (each
 * bot's Chromium runs headed on a display of its own; without it no bot starts either), xdotool
 * (clicks and typing from that display, bot-host/bot/os-input.ts), espeak-ng (speech),
 * util-linux's setpriv (each bot's Chromium and display die with its host; bot-host/bot/browser-owner.ts)
 * and ffmpeg (video and compressed audio recordings, bot-host/bot/recording/; without it bots record WAV).
 */
export const BOT_HOST_PACKAGES = [
	["chromium", "/usr/bin/chromium"],
	["xvfb", "/usr/bin/Xvfb"],
	["xdotool", "/usr/bin/xdotool"],
	["espeak-ng", "/usr/bin/espeak-ng"],
	["util-linux", "/usr/bin/setpriv"],
	["ffmpeg", "/usr/bin/ffmpeg"],
];
/** The tests also check audio with sox. */
/** The tests also load the bot host's seccomp profile through libseccomp (bot-host/test/seccomp-exec.py). */
export const TEST_PACKAGES = [
	...BOT_HOST_PACKAGES,
	["sox", "/usr/bin/sox"],
	["python3", "/usr/bin/python3"],
	["libseccomp2", `/usr/lib/${process.arch === "arm64" ? "aarch64" : "x86_64"}-linux-gnu/libseccomp.so.2`],
];

/**
 * What to do about missing Debian packages: install them (as root) or tell the user the exact
 * command. A CHROMIUM_PATH set in the environment names the operator's own browser.
 */
export function debianPackagePlan(packages, { exists = existsSync, root = process.getuid?.() === 0, env = process.env } = {}) {
	const missing = packages.filter(([pkg, file]) => !(pkg === "chromium" && env.CHROMIUM_PATH) && !exists(file)).map(([pkg]) => pkg);
	if (missing.length === 0) return { action: "none", missing };
	const command = `apt-get install -y ${missing.join(" ")}`;
	return root ? { action: "install", missing, command } : { action: "advise", missing, command: `sudo ${command}` };
}

/** Shared by `npm start` (BOT_HOST_PACKAGES) and `npm test` (TEST_PACKAGES). */
export function ensureDebianPackages(packages = TEST_PACKAGES) {
	const plan = debianPackagePlan(packages);
	if (plan.action === "none") return plan;
	if (plan.action === "advise") {
		log(`missing Debian packages: ${plan.missing.join(", ")}; install them with: ${plan.command}`);
		return plan;
	}
	log(`installing Debian packages: ${plan.missing.join(", ")}…`);
	try {
		execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
		execFileSync("apt-get", ["install", "-y", "-qq", ...plan.missing], {
			stdio: "inherit",
			env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
		});
		return plan;
	} catch {
		// Carry on: what needs the package says so by name (the bot host's /health, a failing test).
		log(`installing ${plan.missing.join(", ")} failed; try yourself: ${plan.command}`);
		return { ...plan, action: "failed" };
	}
}

/** The dashboard is served from dashboard/dist (wrangler.toml [assets]); wrangler refuses to start without it. */
export function buildDashboard() {
	execFileSync(process.execPath, [path.join(root, "scripts", "build-dashboard.mjs")], { cwd: root, stdio: "inherit" });
}

/** Newest modification time of the files under `dir` (recursively), 0 when there are none. */
function newestMtime(dir) {
	let newest = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const file = path.join(dir, entry.name);
		newest = Math.max(newest, entry.isDirectory() ? newestMtime(file) : statSync(file).mtimeMs);
	}
	return newest;
}

/**
 * `@meetbot/client` is imported through its package exports, which point at packages/client/dist
 * (gitignored): build it when it is missing or older than its sources, so a fresh clone's tests,
 * typechecks and the example consumer find it.
 */
export function buildClient({ force = false } = {}) {
	const dir = path.join(root, "packages", "client");
	const built = path.join(dir, "dist", "index.js");
	const sources = Math.max(newestMtime(path.join(dir, "src")), statSync(path.join(dir, "tsconfig.json")).mtimeMs);
	if (!force && existsSync(built) && statSync(built).mtimeMs >= sources) return;
	log("building packages/client…");
	execFileSync(bin("tsc"), ["-p", path.join(dir, "tsconfig.json")], { cwd: root, stdio: "inherit" });
}

export function prepare() {
	ensureNodeModules();
	ensureNode22();
	buildDashboard();
	buildClient();
}
