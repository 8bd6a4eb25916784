// `npm test`: installs what is missing, then the typecheck, the linter and every test tier
// (Worker/DO in workerd, bot host against the sandbox in Chromium, end to end through
// wrangler dev). Ends with one line "N passed, N failed" that any CI can read.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { bin, ensureDebianPackages, prepare, root, TEST_PACKAGES } from "./toolchain.mjs";

/** What git sees changed in the checkout (none outside git): the suite must leave the tree as it found it. */
function treeChanges() {
	const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: root, encoding: "utf8" });
	return status.status === 0 ? new Set(status.stdout.split("\n").filter(Boolean)) : new Set();
}
const changedBefore = treeChanges();

prepare();
ensureDebianPackages(TEST_PACKAGES);

function step(name, command, args) {
	process.stderr.write(`\n== ${name}\n`);
	const result = spawnSync(command, args, {
		cwd: root,
		stdio: "inherit",
		env: { ...process.env, FORCE_COLOR: "0", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
	});
	return result.status === 0;
}

const typecheck = [
	"tsconfig.json",
	"bot-host/tsconfig.json",
	"test/receiver/tsconfig.json",
	"test/e2e/tsconfig.json",
	"dashboard/tsconfig.json",
	"packages/client/tsconfig.json",
	"examples/webhook-consumer/tsconfig.json",
	"examples/webhook-consumer/tsconfig.setup.json",
]
	.filter((project) => existsSync(path.join(root, project)))
	.map((project) => [`typecheck ${project}`, bin("tsc"), ["--noEmit", "-p", project]]);
const checks = [...typecheck, ["lint and format", bin("biome"), ["check", "."]]];
let failedChecks = 0;
for (const [name, command, args] of checks) if (!step(name, command, args)) failedChecks += 1;

const report = path.join(root, ".local", "vitest-report.json");
mkdirSync(path.dirname(report), { recursive: true });
rmSync(report, { force: true });
const extra = process.argv.slice(2);
step("tests", bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...extra]);

let passed = 0;
let failed = failedChecks;
let skipped = 0;
if (existsSync(report)) {
	const r = JSON.parse(readFileSync(report, "utf8"));
	passed = r.numPassedTests;
	failed += r.numFailedTests || r.numFailedTestSuites || 0;
	skipped = r.numPendingTests + r.numTodoTests;
} else {
	failed += 1;
}
const leftBehind = [...treeChanges()].filter((line) => !changedBefore.has(line));
if (leftBehind.length) {
	failed += 1;
	process.stdout.write(`\nthe run changed the checkout (it must leave the tree clean):\n${leftBehind.join("\n")}\n`);
}
if (failedChecks) process.stdout.write(`\n${failedChecks} check(s) failed (typecheck or lint)\n`);
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
process.exit(failed === 0 && passed > 0 && skipped === 0 ? 0 : 1);
