/**
 * The bot host container's seccomp profile (deploy/bot-host-seccomp.json) on a real kernel, with a
 * real Chromium. No container runtime runs here: seccomp-exec.py loads the profile through
 * libseccomp, as runc does, and runs a bot's Chromium under it as a non-root user
 * (sandbox-report.ts, bundled: unprivileged.ts). Under the profile Chromium keeps its namespace
 * sandbox (its processes in a user namespace of their own, each under its own filter on top of
 * the profile's); under RuntimeDefault, the same profile without what was added for Chromium, the
 * host finds no user namespaces: `auto` falls back to no sandbox, and `on` (production) leaves
 * the host not ready (chromium-sandbox.ts decideSandbox). The
 * profile's shape and rules are checked by test/unit/deploy/seccomp-profile.test.ts.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRoot, bundleForUnprivileged, NOBODY, type Runner, sandboxReport } from "./unprivileged.ts";

interface SyscallRule {
	names: string[];
	action: string;
	args?: { index: number; value: number; valueTwo?: number; op: string }[];
}
interface Report {
	uid: number;
	decision: { sandbox: boolean; why: string };
	seccomp: number[];
	filters: number[];
	userNamespaces: number;
}

const PROFILE = path.resolve(import.meta.dirname, "../../deploy/bot-host-seccomp.json");
/** What RuntimeDefault allows of clone without CAP_SYS_ADMIN: no CLONE_NEW* flag (moby/profiles seccomp/default.json). */
const RUNTIME_DEFAULT_CLONE: SyscallRule = {
	names: ["clone"],
	action: "SCMP_ACT_ALLOW",
	args: [{ index: 0, value: 2114060288, valueTwo: 0, op: "SCMP_CMP_MASKED_EQ" }],
};

let runner: Runner | null = null;
beforeAll(async () => {
	runner = await bundleForUnprivileged(path.join(import.meta.dirname, "sandbox-report.ts"), [
		{ from: "test/seccomp-exec.py", to: "seccomp-exec.py" },
	]);
	const profile = JSON.parse(readFileSync(PROFILE, "utf8")) as { syscalls: SyscallRule[] };
	const added = ["clone", "unshare", "chroot"];
	const runtimeDefault = {
		...profile,
		syscalls: [...profile.syscalls.filter((rule) => !rule.names.some((name) => added.includes(name))), RUNTIME_DEFAULT_CLONE],
	};
	for (const [name, body] of [
		["profile.json", profile],
		["runtime-default.json", runtimeDefault],
	] as const) {
		writeFileSync(path.join(runner.dir, name), JSON.stringify(body));
		chmodSync(path.join(runner.dir, name), 0o644);
	}
}, 60_000);
afterAll(() => runner?.remove());

/** sandbox-report.ts with BOT_CHROMIUM_SANDBOX=auto under `profile` (a file in the runner's directory), as a non-root user. */
function reportUnder(profile: string): Report {
	const dir = runner?.dir ?? "";
	return sandboxReport<Report>(runner, "auto", ["/usr/bin/python3", path.join(dir, "seccomp-exec.py"), path.join(dir, profile)]);
}

/** Whether this machine lets a non-root user make a user namespace at all, with no filter in the way. */
function userNamespacesHere(): boolean {
	const unshare = ["unshare", "--user", "true"];
	const command = asRoot ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", ...unshare] : unshare;
	return spawnSync(command[0] ?? "", command.slice(1), { stdio: "ignore", timeout: 5_000 }).status === 0;
}

describe("Chromium under the bot host container's seccomp profile", () => {
	it("keeps its namespace sandbox, each of its processes filtered by the profile and the sandboxed ones by Chromium too", () => {
		const report = reportUnder("profile.json");
		expect(report.uid).not.toBe(0);
		// Every process of the browser runs under the profile's filter.
		expect(report.filters.length).toBeGreaterThan(1);
		expect(report.filters.every((count) => count >= 1)).toBe(true);
		if (!userNamespacesHere()) {
			// The kernel itself refuses them here: the host says why, whatever the profile allows.
			expect(report.decision).toMatchObject({ sandbox: false, why: expect.stringMatching(/user namespaces/) });
			return;
		}
		expect(report.decision).toEqual({ sandbox: true, why: "unprivileged user namespaces are available" });
		// The sandboxed processes add Chromium's own filter to the profile's, and live in a user namespace of their own.
		expect(Math.max(...report.filters)).toBeGreaterThanOrEqual(2);
		expect(report.userNamespaces).toBeGreaterThanOrEqual(2);
	});

	it("finds no user namespaces under RuntimeDefault: Chromium runs without its sandbox, or with BOT_CHROMIUM_SANDBOX=on not at all", () => {
		const report = reportUnder("runtime-default.json");
		expect(report.decision).toMatchObject({
			sandbox: false,
			why: expect.stringContaining("neither unprivileged user namespaces nor a setuid chrome-sandbox helper is available"),
		});
		expect(report.userNamespaces).toBe(1);
	});
});
