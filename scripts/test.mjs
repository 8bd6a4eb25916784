// `npm test`: installs what is missing, then the typecheck, the linter and every test tier
// (Worker/DO in workerd, bot host against the sandbox in Chromium, end to end through
// wrangler dev). Ends with one line "N passed, N failed" that any CI can read.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
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

const ENV = { ...process.env, FORCE_COLOR: "0", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

/**
 * Runs one command; `quiet` keeps its output and prints it whole, under its name, when it ends
 * (so that steps run side by side do not mix their lines). Resolves to whether it passed.
 */
function step(name, command, args, { quiet = false } = {}) {
	if (!quiet) process.stderr.write(`\n== ${name}\n`);
	const started = Date.now();
	const child = spawn(command, args, { cwd: root, stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit", env: ENV });
	const output = [];
	child.stdout?.on("data", (chunk) => output.push(chunk));
	child.stderr?.on("data", (chunk) => output.push(chunk));
	return new Promise((resolve) => {
		child.on("close", (code) => {
			if (quiet) process.stderr.write(`\n== ${name} (${Math.round((Date.now() - started) / 1000)} s)\n${Buffer.concat(output).toString()}`);
			resolve(code === 0);
		});
	});
}

/** Runs the steps at most `width` at a time; resolves to how many failed. */
async function pool(steps, width) {
	let failures = 0;
	const queue = [...steps];
	const lane = async () => {
		for (let next = queue.shift(); next; next = queue.shift()) if (!(await step(...next, { quiet: true }))) failures += 1;
	};
	await Promise.all(Array.from({ length: Math.min(width, queue.length) }, lane));
	return failures;
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
// Each check is one single-threaded process: as many side by side as there are cores.
const failedChecks = await pool(checks, Math.max(2, availableParallelism()));

const report = path.join(root, ".local", "vitest-report.json");
mkdirSync(path.dirname(report), { recursive: true });
rmSync(report, { force: true });
const extra = process.argv.slice(2);
const vitest = (file, args) => [bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${file}`, ...args]];
// Whether every vitest run ended well: a run that dies before its tests (a global set-up that fails)
// can leave a report with nothing failed in it, and the other lane's passes must not hide that.
let runsPassed = true;
if (extra.length > 0) {
	runsPassed = await step("tests", ...vitest(report, extra));
} else {
	// Two lanes side by side (most of the bot-host and e2e tiers' time is spent waiting on real clocks,
	// not on the cores). Vitest would run the e2e tier, one file at a time, only after every other tier;
	// here it has a lane of its own after the Worker tier, one file at a time there too, while the
	// bot-host tier keeps its two files at a time beside it. The second lane's output is printed when it ends.
	const e2eReport = path.join(root, ".local", "vitest-report-e2e.json");
	rmSync(e2eReport, { force: true });
	const lanes = await Promise.all([
		step("tests", ...vitest(report, ["--project=!e2e", "--project=!worker"])),
		step("tests: worker, then e2e", ...vitest(e2eReport, ["--project=worker", "--project=e2e", "--maxWorkers=1"]), { quiet: true }),
	]);
	runsPassed = lanes.every(Boolean);
	mergeReports(report, e2eReport);
}

/** One report for both runs (what CI and the timing notes read): the counts summed, the files of both. */
function mergeReports(into, from) {
	if (!existsSync(into) || !existsSync(from)) {
		rmSync(into, { force: true });
		return;
	}
	const a = JSON.parse(readFileSync(into, "utf8"));
	const b = JSON.parse(readFileSync(from, "utf8"));
	for (const key of Object.keys(a)) if (key.startsWith("num") && typeof a[key] === "number") a[key] += b[key] ?? 0;
	a.success = a.success && b.success;
	a.testResults = [...a.testResults, ...b.testResults];
	writeFileSync(into, JSON.stringify(a));
	rmSync(from, { force: true });
}

/**
 * Names each failed test and the first lines of why, last, where a CI log's tail shows them: each lane's
 * own output is long, and a failure in the first lane scrolls out of view behind the second's.
 */
function printFailures(r) {
	const lines = [];
	for (const file of r.testResults) {
		const name = path.relative(root, file.name);
		const failedTests = file.assertionResults.filter((a) => a.status === "failed");
		if (failedTests.length === 0 && file.status === "failed") lines.push(`- ${name}: ${firstLines(file.message)}`);
		for (const a of failedTests) lines.push(`- ${name} > ${a.fullName}\n    ${firstLines(a.failureMessages?.[0])}`);
	}
	if (lines.length) process.stdout.write(`\nfailed:\n${lines.join("\n")}\n`);
}

function firstLines(message = "") {
	const ours = message.split("\n").filter((line) => !/node_modules|node:internal/.test(line));
	return ours.slice(0, 3).join("\n    ").slice(0, 600);
}

let passed = 0;
let failed = failedChecks;
let skipped = 0;
if (existsSync(report)) {
	const r = JSON.parse(readFileSync(report, "utf8"));
	passed = r.numPassedTests;
	failed += r.numFailedTests || r.numFailedTestSuites || 0;
	skipped = r.numPendingTests + r.numTodoTests;
	printFailures(r);
} else {
	failed += 1;
}
if (!runsPassed && failed === failedChecks) {
	failed += 1;
	process.stdout.write("\na vitest run ended in error with no failed test in its report (see its output above)\n");
}
const leftBehind = [...treeChanges()].filter((line) => !changedBefore.has(line));
if (leftBehind.length) {
	failed += 1;
	process.stdout.write(`\nthe run changed the checkout (it must leave the tree clean):\n${leftBehind.join("\n")}\n`);
}
if (failedChecks) process.stdout.write(`\n${failedChecks} check(s) failed (typecheck or lint)\n`);
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
process.exit(failed === 0 && passed > 0 && skipped === 0 ? 0 : 1);
