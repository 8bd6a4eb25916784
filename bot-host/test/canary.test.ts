/**
 * `npm run canary` as an operator runs it (the real command, a child process), against sandbox
 * meetings: what it prints, the screenshots and report it leaves, and its exit code.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { CanaryReport } from "../canary.ts";
import type { Scenario } from "../sandbox/scenario.ts";
import { type Sandbox, startSandbox } from "../sandbox/server.ts";

const ROOT = path.join(import.meta.dirname, "..", "..");

function canary(args: string[]): Promise<{ code: number | null; output: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [path.join(ROOT, "scripts", "canary.mjs"), ...args], { cwd: ROOT, env: process.env });
		let output = "";
		child.stdout.on("data", (chunk) => {
			output += chunk;
		});
		child.stderr.on("data", (chunk) => {
			output += chunk;
		});
		child.on("exit", (code) => resolve({ code, output }));
	});
}

describe("npm run canary", () => {
	let sandbox: Sandbox;
	let out: string;
	let n = 0;
	beforeAll(async () => {
		sandbox = await startSandbox();
		out = mkdtempSync(path.join(tmpdir(), "canary-test-"));
	});
	afterAll(async () => {
		await sandbox.close();
		rmSync(out, { recursive: true, force: true });
	});

	const meeting = (scenario: z.input<typeof Scenario>) => {
		const id = `cnr-${"abcdefghij"[n++ % 10]}tst-qzx`;
		sandbox.setScenario(id, scenario);
		return id;
	};
	const run = (link: string, dir: string, extra: string[] = []) =>
		canary([link, `--sandbox=${sandbox.port}:${sandbox.spkiHash}`, "--stay", "2", "--lobby-timeout", "30", "--out", dir, ...extra]);
	const report = (dir: string): CanaryReport => JSON.parse(readFileSync(path.join(dir, "report.json"), "utf8"));

	it("walks a bot into a meeting that admits it, prints each step with screenshots, and leaves (exit 0)", async () => {
		const id = meeting({
			admit_after_ms: 500,
			participants: [{ name: "Olivia Operator", lines: ["Can everyone hear me?"] }],
			speech_start_ms: 300,
		});
		const dir = path.join(out, "admitted");
		const { code, output } = await run(`https://meet.google.com/${id}`, dir, ["--name", "Canary Check"]);
		expect(output).toContain(`canary: Google Meet https://meet.google.com/${id} as "Canary Check"`);
		expect(output).toMatch(/✓ +[\d.]+ s {2}typed the bot's name/);
		expect(output).toMatch(/✓ +[\d.]+ s {2}in the lobby, waiting to be admitted {2}\[\d\d-lobby\.jpg\]/);
		expect(output).toMatch(/✓ +[\d.]+ s {2}admitted: in the call; staying 2 s {2}\[\d\d-admitted\.jpg\]/);
		expect(output).toContain("saw a participant: Olivia Operator");
		expect(output).toMatch(/read a caption: Olivia Operator: "Can/);
		expect(output).toContain("result: joined and left cleanly: completed, stopped");
		expect(code).toBe(0);
		const written = report(dir);
		expect(written).toMatchObject({ platform: "google_meet", bot_name: "Canary Check", admitted: true, exit_code: 0 });
		for (const step of written.steps.filter((s) => s.screenshot)) expect(existsSync(path.join(dir, step.screenshot ?? ""))).toBe(true);
		expect(written.steps.filter((s) => s.screenshot).length).toBeGreaterThanOrEqual(2);
		expect(sandbox.observed(id)?.bot_names).toEqual(["Canary Check"]);
	});

	it("fails at the lobby when the host denies it, with the reason and the page (exit 1), and never prints the passcode", async () => {
		const id = "8012345678";
		sandbox.setScenario(id, { deny: true, deny_after_ms: 400, passcode: "sEcr3t" });
		const dir = path.join(out, "denied");
		const { code, output } = await run(`https://us05web.zoom.us/j/${id}?pwd=sEcr3t`, dir);
		expect(output).toMatch(/✓ +[\d.]+ s {2}in the lobby/);
		expect(output).toMatch(/✗ +[\d.]+ s {2}failed: the host denied the request to join.* \(page: \w+\) {2}\[\d\d-failed\.jpg\]/);
		expect(existsSync(path.join(dir, report(dir).steps.at(-1)?.screenshot ?? "none"))).toBe(true);
		expect(output).toContain("result: did not get into the call: failed, awaiting_admission_rejected");
		expect(output).not.toContain("sEcr3t");
		expect(readFileSync(path.join(dir, "report.json"), "utf8")).not.toContain("sEcr3t");
		expect(code).toBe(1);
		expect(report(dir)).toMatchObject({ platform: "zoom", admitted: false, exit_code: 1 });
	});

	it("says a meeting that does not exist is not found (exit 1)", async () => {
		const dir = path.join(out, "not-found");
		const { code, output } = await run("https://teams.microsoft.com/meet/9111222333444", dir);
		expect(output).toMatch(/✗ +[\d.]+ s {2}failed: meeting not found/);
		expect(code).toBe(1);
	});

	it("refuses what is not a meeting link, and bad options, with a usage line (exit 2)", async () => {
		const notLink = await canary(["https://example.com/meeting?pwd=hidden"]);
		expect(notLink.code).toBe(2);
		expect(notLink.output).toContain("canary: not a Google Meet, Zoom or Teams meeting link: https://example.com/meeting");
		expect(notLink.output).not.toContain("hidden");
		const badStay = await canary(["https://meet.google.com/abc-defg-hij", "--stay", "soon"]);
		expect(badStay.code).toBe(2);
		expect(badStay.output).toContain("--stay takes whole seconds from 1 to 14400");
		expect(badStay.output).toContain("usage: npm run canary -- <meeting link>");
	});
});
