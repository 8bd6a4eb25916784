/**
 * A real Node binary of another major version, for tests that run a program under it (the
 * client on Node 20): the npm registry's `node-<platform>-<arch>` package, which holds the
 * official build, fetched once into a cache outside the checkout and reused by later runs.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** The platforms and architectures the registry has a `node-<platform>-<arch>` package for. */
const PACKAGED: Record<string, string[]> = { linux: ["x64", "arm64"], darwin: ["x64", "arm64"] };

/** `$XDG_CACHE_HOME/meetbot-edge` (else `~/.cache/meetbot-edge`): kept between runs, never in the tree. */
export function cacheDir(): string {
	const base = process.env.XDG_CACHE_HOME || path.join(os.homedir() || os.tmpdir(), ".cache");
	return path.join(base, "meetbot-edge");
}

function versionOf(binary: string): string | undefined {
	try {
		return execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
	} catch {
		return undefined;
	}
}

/**
 * The path of a Node `major` binary for this machine. A machine the registry has no build for
 * fails here, with the reason, rather than quietly testing less.
 */
export function nodeBinary(major: number): string {
	if (!PACKAGED[process.platform]?.includes(process.arch))
		throw new Error(
			`no Node ${major} build for ${process.platform}-${process.arch} on the npm registry (node-<platform>-<arch> covers linux and darwin on x64 and arm64)`,
		);
	const name = `node-${process.platform}-${process.arch}`;
	const home = path.join(cacheDir(), `${name}-${major}`);
	const binary = path.join(home, "bin", "node");
	if (versionOf(binary)?.startsWith(`v${major}.`)) return binary;

	// Unpacked beside the cache and renamed into place, so an interrupted fetch leaves no half binary behind.
	const staging = `${home}.partial-${process.pid}`;
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(staging, { recursive: true });
	try {
		// Without the npm_* settings of a parent `npm test`: this fetch has nothing to do with the checkout.
		const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_")));
		execFileSync("npm", ["pack", `${name}@${major}`, "--pack-destination", staging, "--silent"], {
			env,
			stdio: ["ignore", "ignore", "pipe"],
		});
		const tarball = readdirSync(staging).find((f) => f.endsWith(".tgz"));
		if (!tarball) throw new Error(`npm pack ${name}@${major} produced no tarball`);
		execFileSync("tar", ["-xzf", path.join(staging, tarball), "-C", staging, "package/bin/node"]);
		rmSync(home, { recursive: true, force: true });
		renameSync(path.join(staging, "package"), home);
	} finally {
		rmSync(staging, { recursive: true, force: true });
	}
	const version = versionOf(binary);
	if (!version?.startsWith(`v${major}.`)) throw new Error(`${binary} is ${version ?? "not runnable"}, not Node ${major}`);
	return binary;
}
