/** When a bot's Chromium keeps its sandbox, and the launch flags that follow. */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideSandbox, parseSandboxSetting, type SandboxHost, sandboxFlags } from "../bot/chromium-sandbox.ts";
import { bundleForUnprivileged, type Runner, sandboxReport } from "./unprivileged.ts";

const host = (fields: Partial<SandboxHost>): SandboxHost => ({ root: false, userNamespaces: false, setuidHelper: false, ...fields });

describe("the Chromium sandbox decision", () => {
	it("keeps the sandbox for a non-root host with user namespaces or a setuid helper", () => {
		expect(decideSandbox("auto", host({ userNamespaces: true }))).toEqual({
			sandbox: true,
			why: "unprivileged user namespaces are available",
		});
		expect(decideSandbox("auto", host({ setuidHelper: true }))).toEqual({
			sandbox: true,
			why: "a setuid chrome-sandbox helper is installed",
		});
	});

	it("in auto, turns it off as root and where the kernel offers neither, and says so loudly as a problem", () => {
		const root = "running as root, where Chromium refuses to start sandboxed";
		const neither = "neither unprivileged user namespaces nor a setuid chrome-sandbox helper is available";
		for (const [fields, why] of [
			[{ root: true, setuidHelper: true }, root],
			[{}, neither],
		] as const) {
			const detail = `Chromium runs WITHOUT its sandbox (BOT_CHROMIUM_SANDBOX=auto fell back): ${why}; set BOT_CHROMIUM_SANDBOX=on in production`;
			expect(decideSandbox("auto", host(fields))).toEqual({ sandbox: false, why: detail, problem: { fatal: false, detail } });
		}
	});

	it("with on, keeps the sandbox where it can be had, and otherwise refuses work instead of falling back; off is off", () => {
		expect(decideSandbox("on", host({ userNamespaces: true }))).toEqual({
			sandbox: true,
			why: "BOT_CHROMIUM_SANDBOX=on and unprivileged user namespaces are available",
		});
		for (const fields of [{ root: true }, { root: true, userNamespaces: true }, {}]) {
			const decision = decideSandbox("on", host(fields));
			// Never launched unsandboxed: the host takes no work, and Chromium itself would refuse to start.
			expect(decision.sandbox).toBe(true);
			expect(decision.problem?.fatal).toBe(true);
			expect(decision.problem?.detail).toMatch(
				/^BOT_CHROMIUM_SANDBOX=on, but the Chromium sandbox is not available here: .+; this host takes no work$/,
			);
		}
		// Off is the operator's explicit choice: no sandbox whatever the host, and not reported as a problem.
		expect(decideSandbox("off", host({ userNamespaces: true }))).toEqual({ sandbox: false, why: "BOT_CHROMIUM_SANDBOX=off" });
	});

	it("reads the setting: unset is auto, anything but on/off/auto is refused", () => {
		expect(parseSandboxSetting(undefined)).toBe("auto");
		expect(parseSandboxSetting("")).toBe("auto");
		expect(parseSandboxSetting(" OFF ")).toBe("off");
		expect(() => parseSandboxSetting("yes")).toThrow("BOT_CHROMIUM_SANDBOX must be on, off or auto");
	});

	it("drops --no-zygote with the sandbox on, which refuses it, and never runs a bot as one process", () => {
		expect(sandboxFlags(true)).toEqual([]);
		// --single-process crashed headed Chromium on Xvfb as it started or as a page ended.
		expect(sandboxFlags(false)).toEqual(["--no-sandbox", "--no-zygote"]);
	});
});

interface SandboxReport {
	uid: number;
	decision: { sandbox: boolean; why: string };
	/** Seccomp mode of each Chromium process: 2 is a seccomp-bpf filter, the sandbox's. */
	seccomp: number[];
}

let runner: Runner | null = null;
beforeAll(async () => {
	runner = await bundleForUnprivileged(path.join(import.meta.dirname, "sandbox-report.ts"));
}, 60_000);
afterAll(() => runner?.remove());

/** Runs the bundled report as a non-root user (dropping to nobody when the test runs as root). */
const reportAsUnprivileged = (setting: string) => sandboxReport<SandboxReport>(runner, setting);

describe("a bot's Chromium as a non-root user", () => {
	it("really runs sandboxed when the decision says on, and says why when it cannot", () => {
		const report = reportAsUnprivileged("auto");
		expect(report.uid).not.toBe(0);
		if (report.decision.sandbox) expect(report.seccomp).toContain(2);
		else expect(report.decision.why).toMatch(/user namespaces|chrome-sandbox/);
	});

	it("runs without a seccomp sandbox when it is turned off", () => {
		const report = reportAsUnprivileged("off");
		expect(report.decision).toEqual({ sandbox: false, why: "BOT_CHROMIUM_SANDBOX=off" });
		expect(report.seccomp.length).toBeGreaterThan(0);
		expect(report.seccomp).not.toContain(2);
	});
});
