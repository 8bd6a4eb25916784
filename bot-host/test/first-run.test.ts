/**
 * A first run on a machine that lacks what the bot host needs: the bot host as `npm start`
 * launches it (scripts/local-stack.mjs → bot-host/main.ts, a real process) says what is missing
 * instead of hanging or pretending to be ready, and the package step says what it will do.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { launchBotHost, startBotHost } from "../../scripts/local-stack.mjs";
import { freePort } from "../../scripts/ports.mjs";
import { BOT_HOST_PACKAGES, debianPackagePlan, installNeeded, TEST_PACKAGES } from "../../scripts/toolchain.mjs";
import { decideSandbox, probeSandboxHost } from "../bot/chromium-sandbox.ts";
import { pathWithout } from "./browsers.ts";
import { FakeProc } from "./fake-proc.ts";

const rootPackage = JSON.parse(readFileSync(path.join(import.meta.dirname, "../../package.json"), "utf8")) as { version: string };

const CREDENTIAL = "bhc_first-run-credential";
const MISSING_CHROMIUM = path.join(tmpdir(), "no-chromium-here", "chromium");
const NO_BROWSER = `Chromium not found at ${MISSING_CHROMIUM} (install the Debian package chromium, or set CHROMIUM_PATH to a Chromium binary)`;
const NO_SPEECH =
	"espeak-ng not found on PATH (install the Debian package espeak-ng): bots cannot speak text and sandbox participants are silent";

const NO_DISPLAY =
	"Xvfb not found on PATH (install the Debian package xvfb): each bot's Chromium runs headed on a virtual display of its own, so no bot can start";
const NO_INPUT =
	"xdotool not found on PATH (install the Debian package xdotool): bots click and type with DevTools events, which Google Meet tells from a person's and may refuse";

const NO_ENCODER =
	"ffmpeg not found on PATH (install the Debian package ffmpeg): bots record the meeting's audio as WAV, with no video and no compressed audio";

const NO_GATEWAY = "BOT_HOST_GATEWAY_URL is not set: this host cannot pull or claim meetings";
/**
 * Where a host takes work from; nothing listens there, so it only backs off. The sandbox
 * decision is stated, so the problems named are the ones a test is about, wherever it runs.
 */
const WORK = {
	SPAWN_QUEUE_URL: "http://127.0.0.1:9/client/v4/accounts/local/queues/first-run",
	BOT_HOST_GATEWAY_URL: "http://127.0.0.1:9",
	BOT_CHROMIUM_SANDBOX: "off",
};

const noSpeechPath = pathWithout("espeak-ng");
const noDisplayPath = pathWithout("Xvfb");
const noInputPath = pathWithout("xdotool");
const noEncoderPath = pathWithout("ffmpeg");

async function stop(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null) return;
	const exited = once(child, "exit");
	child.kill("SIGTERM");
	await exited;
}

describe("the bot host on a first run", () => {
	afterAll(() => {
		for (const dir of [noSpeechPath, noDisplayPath, noInputPath, noEncoderPath]) rmSync(dir, { recursive: true, force: true });
	});

	it("keeps listening without Chromium, but answers 503 naming it and everything else it lacks", async () => {
		const port = await freePort();
		const { child, health } = await launchBotHost({
			port,
			credential: CREDENTIAL,
			sandboxPort: await freePort(),
			quiet: true,
			env: { CHROMIUM_PATH: MISSING_CHROMIUM, PATH: noSpeechPath, ...WORK },
		});
		try {
			expect(health).toEqual({
				ready: false,
				status: "unavailable",
				detail: NO_BROWSER,
				problems: [NO_BROWSER, NO_SPEECH],
				bots: 0,
				free: 0,
				// Not ready first; the machine it runs on may add its own pressure or load.
				limited_by: expect.arrayContaining(["not_ready"]),
				refusing: expect.stringMatching(/^not ready \(the host's \/health says why\)/),
				refusing_since: expect.any(String),
			});
			// The service's one version (the root package.json's) names the host in /metrics and its reports.
			const metrics = (await (await fetch(`http://127.0.0.1:${port}/metrics`)).json()) as { version: string };
			expect(metrics.version).toBe(rootPackage.version);
		} finally {
			await stop(child);
		}
	});

	it("without a gateway to pull work through, is not ready and names it", async () => {
		const port = await freePort();
		const { child, health } = await launchBotHost({
			port,
			credential: CREDENTIAL,
			sandboxPort: await freePort(),
			quiet: true,
			env: { SPAWN_QUEUE_URL: "", BOT_HOST_GATEWAY_URL: "", BOT_CHROMIUM_SANDBOX: "off" },
		});
		try {
			expect(health).toMatchObject({ ready: false, status: "unavailable", detail: NO_GATEWAY, bots: 0, free: 0 });
			expect(health.problems?.[0]).toBe(NO_GATEWAY);
		} finally {
			await stop(child);
		}
	});

	it("without a credential of its own, is not ready and says how to get one (BOT_HOST_SECRET is retired)", async () => {
		const { child, health } = await launchBotHost({
			port: await freePort(),
			sandboxPort: await freePort(),
			quiet: true,
			env: { ...WORK, BOT_HOST_SECRET: "the-shared-secret-of-old" },
		});
		try {
			expect(health).toMatchObject({
				ready: false,
				status: "unavailable",
				detail:
					"BOT_HOST_SECRET is retired: this host has no credential of its own: mint one for its host id (POST /admin/bot-hosts) and set BOT_HOST_CREDENTIAL or BOT_HOST_CREDENTIAL_FILE",
				free: 0,
			});
		} finally {
			await stop(child);
		}
	});

	it("reads BOT_HOST_CREDENTIAL_FILE at every check: not ready without the file, ready once it is mounted", async () => {
		const dir = mkdtempSync(path.join(tmpdir(), "credential-"));
		const file = path.join(dir, "host-7");
		const port = await freePort();
		const { child, health } = await launchBotHost({
			port,
			sandboxPort: await freePort(),
			quiet: true,
			env: { ...WORK, BOT_HOST_CREDENTIAL_FILE: file },
		});
		try {
			expect(health).toMatchObject({
				ready: false,
				detail: `the credential file ${file} (BOT_HOST_CREDENTIAL_FILE) is missing or empty: this host cannot claim meetings`,
			});
			writeFileSync(file, `${CREDENTIAL}\n`);
			const res = await fetch(`http://127.0.0.1:${port}/health`);
			expect(res.status).toBe(200);
			expect(await res.json()).toMatchObject({ status: "ok", problems: [] });
		} finally {
			await stop(child);
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it("with BOT_CHROMIUM_SANDBOX=on takes no work where the sandbox cannot be had; auto falls back only saying so", async () => {
		const unavailable = decideSandbox("on", probeSandboxHost("/usr/bin/chromium")).problem;
		const required = await launchBotHost({
			port: await freePort(),
			credential: CREDENTIAL,
			sandboxPort: await freePort(),
			quiet: true,
			env: { ...WORK, BOT_CHROMIUM_SANDBOX: "on" },
		});
		const fallback = await launchBotHost({
			port: await freePort(),
			credential: CREDENTIAL,
			sandboxPort: await freePort(),
			quiet: true,
			env: { ...WORK, BOT_CHROMIUM_SANDBOX: "auto" },
		});
		try {
			if (unavailable) {
				// This machine (root, or a kernel without user namespaces): `on` is fail-closed, `auto` degraded.
				expect(unavailable.fatal).toBe(true);
				expect(required.health).toMatchObject({ ready: false, status: "unavailable", detail: unavailable.detail, free: 0 });
				expect(unavailable.detail).toMatch(
					/^BOT_CHROMIUM_SANDBOX=on, but the Chromium sandbox is not available here: .+; this host takes no work$/,
				);
				const fellBack = decideSandbox("auto", probeSandboxHost("/usr/bin/chromium")).problem?.detail ?? "";
				expect(fellBack).toMatch(/^Chromium runs WITHOUT its sandbox \(BOT_CHROMIUM_SANDBOX=auto fell back\): /);
				expect(fallback.health).toMatchObject({ ready: true, status: "degraded", detail: fellBack, problems: [fellBack] });
			} else {
				expect(required.health).toMatchObject({ ready: true, status: "ok" });
				expect(fallback.health).toMatchObject({ ready: true, status: "ok" });
			}
		} finally {
			await stop(required.child);
			await stop(fallback.child);
		}
	});

	it("makes the start step for tests and benches fail with the host's reason, not a health-check timeout", async () => {
		await expect(
			startBotHost({
				port: await freePort(),
				credential: CREDENTIAL,
				sandboxPort: await freePort(),
				quiet: true,
				env: { CHROMIUM_PATH: MISSING_CHROMIUM, ...WORK },
			}),
		).rejects.toThrow(`the bot host is not ready: ${NO_BROWSER}`);
	});

	it("reads pressure where BOT_HOST_PROC_DIR points, with the limits its settings give: ready, but refusing and saying why", async () => {
		const proc = new FakeProc().pressure("cpu", 70).pressure("memory", 0).meminfo(16_000);
		const port = await freePort();
		const { child, health } = await launchBotHost({
			port,
			credential: CREDENTIAL,
			sandboxPort: await freePort(),
			quiet: true,
			env: { ...WORK, BOT_HOST_PROC_DIR: proc.dir, BOT_HOST_IDLE_MAX_PRESSURE: "60" },
		});
		try {
			expect(health).toMatchObject({
				ready: true,
				free: 0,
				limited_by: ["cpu"],
				refusing: "CPU pressure 70% (limit 60% while this host runs no bot)",
			});
			proc.pressure("cpu", 40);
			const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).json();
			expect(metrics).toMatchObject({ cpu_pressure: 40, mem_available_mb: 16_000, limited_by: [], refusing: null });
			expect(metrics.free).toBeGreaterThan(0);
		} finally {
			await stop(child);
			proc.remove();
		}
	});

	it("exits naming a pressure limit that is no percentage", async () => {
		const child = spawn(process.execPath, ["bot-host/main.ts"], {
			env: { ...process.env, ...WORK, BOT_HOST_PORT: String(await freePort()), BOT_HOST_MAX_CPU_PRESSURE: "150" },
			stdio: ["ignore", "ignore", "pipe"],
		});
		const stderr: string[] = [];
		child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
		const [code] = await once(child, "exit");
		expect(code).toBe(1);
		expect(stderr.join("")).toContain("BOT_HOST_MAX_CPU_PRESSURE must be a number above 0 and at most 100 (percent)");
	});

	it("without Xvfb is not ready, naming the package: bots run headed on a display of their own or not at all", async () => {
		const { child, health } = await launchBotHost({
			port: await freePort(),
			credential: CREDENTIAL,
			sandboxPort: await freePort(),
			quiet: true,
			env: { PATH: noDisplayPath, ...WORK },
		});
		try {
			expect(health).toMatchObject({ ready: false, status: "unavailable", detail: NO_DISPLAY, problems: [NO_DISPLAY], free: 0 });
		} finally {
			await stop(child);
		}
	});

	it("is ready but degraded without xdotool, and says what its bots lose", async () => {
		const { child, health } = await launchBotHost({
			port: await freePort(),
			credential: CREDENTIAL,
			sandboxPort: await freePort(),
			quiet: true,
			env: { PATH: noInputPath, ...WORK },
		});
		try {
			expect(health).toMatchObject({ ready: true, status: "degraded", detail: NO_INPUT, problems: [NO_INPUT], bots: 0 });
		} finally {
			await stop(child);
		}
	});

	it("is ready but degraded without ffmpeg, and says its bots record WAV", async () => {
		const { child, health } = await launchBotHost({
			port: await freePort(),
			credential: CREDENTIAL,
			sandboxPort: await freePort(),
			quiet: true,
			env: { PATH: noEncoderPath, ...WORK },
		});
		try {
			expect(health).toMatchObject({ ready: true, status: "degraded", detail: NO_ENCODER, problems: [NO_ENCODER], bots: 0 });
		} finally {
			await stop(child);
		}
	});

	it("is ready but degraded without espeak-ng, and says so", async () => {
		const port = await freePort();
		const { child, health } = await launchBotHost({
			port,
			credential: CREDENTIAL,
			sandboxPort: await freePort(),
			quiet: true,
			env: { PATH: noSpeechPath, ...WORK },
		});
		try {
			expect(health).toMatchObject({ ready: true, status: "degraded", detail: NO_SPEECH, problems: [NO_SPEECH], bots: 0 });
		} finally {
			await stop(child);
		}
	});
});

describe("the Debian package step shared by npm start and npm test", () => {
	const none = () => false;

	it("installs as root what the bot host lacks, and tells anyone else the exact command", () => {
		expect(debianPackagePlan(BOT_HOST_PACKAGES, { exists: none, root: true, env: {} })).toEqual({
			action: "install",
			missing: ["chromium", "xvfb", "xdotool", "espeak-ng", "util-linux", "ffmpeg"],
			command: "apt-get install -y chromium xvfb xdotool espeak-ng util-linux ffmpeg",
		});
		expect(debianPackagePlan(TEST_PACKAGES, { exists: (file) => file === "/usr/bin/espeak-ng", root: false, env: {} })).toEqual({
			action: "advise",
			missing: ["chromium", "xvfb", "xdotool", "util-linux", "ffmpeg", "sox", "python3", "libseccomp2"],
			command: "sudo apt-get install -y chromium xvfb xdotool util-linux ffmpeg sox python3 libseccomp2",
		});
		// Xvfb and xdotool are looked for where Debian's packages put them.
		expect(debianPackagePlan(BOT_HOST_PACKAGES, { exists: (file) => file !== "/usr/bin/Xvfb", root: true, env: {} })).toMatchObject({
			missing: ["xvfb"],
		});
	});

	it("does nothing when all is there, and leaves Chromium to the operator who names one", () => {
		expect(debianPackagePlan(TEST_PACKAGES, { exists: () => true, root: true, env: {} })).toEqual({ action: "none", missing: [] });
		expect(
			debianPackagePlan(BOT_HOST_PACKAGES, {
				exists: (file) => file !== "/usr/bin/chromium",
				root: false,
				env: { CHROMIUM_PATH: "/opt/chrome/chrome" },
			}),
		).toEqual({ action: "none", missing: [] });
	});
});

describe("the npm package step shared by npm start, npm test and npm run bench", () => {
	const today = "a".repeat(64);

	it("installs on a fresh clone, and when the lockfile's content changed since the last install", () => {
		expect(installNeeded({ hasWrangler: false, lockHash: today, installedHash: null, hiddenLockNewer: false })).toBe(true);
		expect(installNeeded({ hasWrangler: true, lockHash: today, installedHash: "b".repeat(64), hiddenLockNewer: true })).toBe(true);
	});

	it("reinstalls nothing when only the lockfile's time changed, and keeps npm's rule for node_modules installed before the record", () => {
		expect(installNeeded({ hasWrangler: true, lockHash: today, installedHash: today, hiddenLockNewer: false })).toBe(false);
		expect(installNeeded({ hasWrangler: true, lockHash: today, installedHash: null, hiddenLockNewer: true })).toBe(false);
		expect(installNeeded({ hasWrangler: true, lockHash: today, installedHash: null, hiddenLockNewer: false })).toBe(true);
		// A record without wrangler beside it (node_modules half removed) is no install.
		expect(installNeeded({ hasWrangler: false, lockHash: today, installedHash: today, hiddenLockNewer: true })).toBe(true);
	});
});
