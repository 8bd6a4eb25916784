/**
 * For the tests that run part of the bot host as an unprivileged user (nobody, when the test runs
 * as root): that user cannot read the checkout when it sits under a directory only its owner can
 * enter, so what it runs is bundled into one file, beside a copy of this Node (which may live in
 * the owner's home too), in a directory anyone may read. private-checkout.test.ts runs every test
 * that uses this from such a checkout.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { build } from "esbuild";

export const NOBODY = 65534;
export const asRoot = process.getuid?.() === 0;

export interface Runner {
	/** The bundle's directory, readable by anyone. */
	dir: string;
	node: string;
	script: string;
	/**
	 * The command that runs the bundle: as nobody under root, as the test's own user otherwise;
	 * `through` is a command that runs the rest (it is run as that user too).
	 */
	command: (through?: string[]) => [string, ...string[]];
	remove(): void;
}

/**
 * Bundles `entry` (a file of the checkout) into a readable directory, with `assets` (paths relative
 * to the checkout's bot-host/) copied where the bundle reads them: files the entry's modules read
 * beside themselves (`import.meta.dirname`) land beside the bundle, under the same last directory names.
 */
export async function bundleForUnprivileged(entry: string, assets: { from: string; to: string }[] = []): Promise<Runner> {
	const dir = mkdtempSync(path.join(tmpdir(), "unprivileged-runner-"));
	chmodSync(dir, 0o755);
	const script = path.join(dir, "main.mjs");
	await build({
		entryPoints: [entry],
		outfile: script,
		bundle: true,
		platform: "node",
		format: "esm",
		// Bundled CommonJS dependencies still call require.
		banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
		logLevel: "warning",
	});
	const node = path.join(dir, "node");
	copyFileSync(process.execPath, node);
	chmodSync(node, 0o755);
	chmodSync(script, 0o644);
	for (const asset of assets) {
		const target = path.join(dir, asset.to);
		mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
		chmodSync(path.dirname(target), 0o755);
		copyFileSync(path.join(import.meta.dirname, "..", asset.from), target);
		chmodSync(target, 0o644);
	}
	return {
		dir,
		node,
		script,
		command: (through = []) => {
			const run = [...through, node, script];
			return asRoot
				? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", ...run]
				: [run[0] ?? node, ...run.slice(1)];
		},
		remove: () => rmSync(dir, { recursive: true, force: true }),
	};
}

/**
 * Runs the bundled sandbox-report.ts with BOT_CHROMIUM_SANDBOX=`setting` as the unprivileged user,
 * in a home of its own (Chromium's crash database), through `through` if given, and answers the
 * JSON line it prints.
 */
export function sandboxReport<T>(runner: Runner | null, setting: string, through: string[] = []): T {
	if (!runner) throw new Error("the report was not bundled");
	const home = mkdtempSync(path.join(tmpdir(), "sandbox-report-"));
	try {
		if (asRoot) chownSync(home, NOBODY, NOBODY);
		const [command, ...args] = runner.command(through);
		const run = spawnSync(command, args, {
			encoding: "utf8",
			timeout: 45_000,
			env: { PATH: process.env.PATH, HOME: home, TMPDIR: home, BOT_CHROMIUM_SANDBOX: setting },
		});
		const line = run.stdout.split("\n").find((l) => l.startsWith("{"));
		if (!line) throw new Error(`sandbox report failed (${run.status}): ${run.stderr.slice(-2000)}`);
		return JSON.parse(line) as T;
	} finally {
		rmSync(home, { recursive: true, force: true });
	}
}
