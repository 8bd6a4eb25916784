/**
 * The suite passes from a checkout only its owner can read (issue 32, point 10). The tests that run
 * part of the bot host as another user (nobody, under root) are the ones a private checkout breaks:
 * that user cannot read the checkout's files. This test finds every such test file, clones the
 * repository into a 0700 directory with umask 077 (the working tree's changes to tracked files
 * applied, so it runs what is checked out here), links node_modules, and runs them there with
 * vitest: they must all pass, and leave the clone as they found it.
 */
import { type SpawnOptions, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const THIS_FILE = path.relative(root, import.meta.filename);
/**
 * How a test drops privileges: through unprivileged.ts, or by hand (setpriv's --reuid, runuser, su,
 * setuid, a `uid` in spawn options). `setpriv` alone is no sign: the host also runs it for --pdeathsig.
 */
const DROPS_PRIVILEGES = /from "\.\/unprivileged\.ts"|--reuid|\brunuser\b|\bsu\s+-|process\.set(?:e|re|res)?uid\(|\buid:\s*(?:\d|NOBODY)/;

function git(args: string[], cwd = root): string {
	const run = spawnSync("git", args, { cwd, encoding: "utf8" });
	if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
	return run.stdout;
}

/** Every test file git tracks that drops privileges, this one aside. */
function privilegeDroppingTests(): string[] {
	return git(["ls-files", "-z", "--", "*.test.ts"])
		.split("\0")
		.filter((file) => file && file !== THIS_FILE)
		.filter((file) => DROPS_PRIVILEGES.test(readFileSync(path.join(root, file), "utf8")));
}

/** Runs `command` with umask 077, as an owner who keeps everything to themselves would. */
function privately(command: string[], options: SpawnOptions): Promise<{ code: number | null; output: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn("sh", ["-c", 'umask 077 && exec "$@"', "sh", ...command], { ...options, stdio: ["ignore", "pipe", "pipe"] });
		let output = "";
		for (const stream of [child.stdout, child.stderr]) stream?.on("data", (chunk: Buffer) => (output += chunk.toString()));
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, output }));
	});
}

/** The test runner's environment without what the outer vitest set for its own workers. */
function outsideVitest(): NodeJS.ProcessEnv {
	return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && name !== "NODE_OPTIONS"));
}

describe("a checkout only its owner can read", () => {
	const parent = mkdtempSync(path.join(tmpdir(), "private-checkout-"));
	afterAll(() => rmSync(parent, { recursive: true, force: true }));

	it("runs every test that drops privileges, and they pass", { timeout: 600_000 }, async () => {
		const tests = privilegeDroppingTests();
		// The ones known today: a new way of dropping privileges must still be found by the pattern.
		expect(tests).toEqual(expect.arrayContaining(["bot-host/test/chromium-sandbox.test.ts", "bot-host/test/orphans.test.ts"]));

		expect(statSync(parent).mode & 0o777).toBe(0o700);
		const clone = path.join(parent, "meetbot-edge");
		const cloned = await privately(["git", "clone", "--quiet", "--no-hardlinks", root, clone], {});
		expect(cloned.code, cloned.output).toBe(0);
		expect(git(["rev-parse", "HEAD"], clone)).toBe(git(["rev-parse", "HEAD"]));
		const changes = git(["diff", "--binary", "HEAD"]);
		if (changes) {
			const applied = spawnSync("sh", ["-c", "umask 077 && git apply --binary -"], { cwd: clone, input: changes, encoding: "utf8" });
			expect(applied.status, applied.stderr).toBe(0);
		}
		// What umask 077 makes of a checkout: nothing in it readable by anyone but its owner.
		expect(statSync(path.join(clone, "bot-host", "main.ts")).mode & 0o077).toBe(0);
		symlinkSync(path.join(root, "node_modules"), path.join(clone, "node_modules"));
		const before = git(["status", "--porcelain", "--untracked-files=all"], clone);

		const run = await privately([path.join(clone, "node_modules", ".bin", "vitest"), "run", "--project", "bot-host", ...tests], {
			cwd: clone,
			env: { ...outsideVitest(), NO_COLOR: "1" },
		});
		const output = stripVTControlCharacters(run.output);
		expect(run.code, output.slice(-6000)).toBe(0);
		expect(output).toMatch(new RegExp(`Test Files\\s+${tests.length} passed \\(${tests.length}\\)`));
		expect(output).not.toMatch(/skipped|todo/);
		expect(git(["status", "--porcelain", "--untracked-files=all"], clone)).toBe(before);
	});
});
