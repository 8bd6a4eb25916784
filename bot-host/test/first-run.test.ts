/**
 * A first run on a machine that lacks what the bot host needs: the bot host as `npm start`
 * launches it (scripts/local-stack.mjs → bot-host/main.ts, a real process) says what is missing
 * instead of hanging or pretending to be ready, and the package step says what it will do.
 */
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { launchBotHost, startBotHost } from "../../scripts/local-stack.mjs";
import { freePort } from "../../scripts/ports.mjs";
import { BOT_HOST_PACKAGES, debianPackagePlan, TEST_PACKAGES } from "../../scripts/toolchain.mjs";

const SECRET = "first-run-secret";
const MISSING_CHROMIUM = path.join(tmpdir(), "no-chromium-here", "chromium");
const NO_BROWSER = `Chromium not found at ${MISSING_CHROMIUM} (install the Debian package chromium, or set CHROMIUM_PATH to a Chromium binary)`;
const NO_SPEECH =
	"espeak-ng not found on PATH (install the Debian package espeak-ng): bots cannot speak text and sandbox participants are silent";

const NO_QUEUE = "SPAWN_QUEUE_URL is not set: this host has no queue to take work from";
const NO_GATEWAY = "BOT_HOST_GATEWAY_URL is not set: this host cannot claim meetings";
/** Where a host takes work from; nothing listens there, so it only backs off. */
const WORK = {
	SPAWN_QUEUE_URL: "http://127.0.0.1:9/client/v4/accounts/local/queues/first-run",
	BOT_HOST_GATEWAY_URL: "http://127.0.0.1:9",
};

/** This machine's PATH as one directory of links, without espeak-ng: a machine that never installed it. */
function pathWithout(command: string): string {
	const dir = mkdtempSync(path.join(tmpdir(), `path-without-${command}-`));
	for (const from of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
		let names: string[];
		try {
			names = readdirSync(from);
		} catch {
			continue;
		}
		for (const name of names) {
			if (name === command || existsSync(path.join(dir, name))) continue;
			symlinkSync(path.join(from, name), path.join(dir, name));
		}
	}
	return dir;
}
const noSpeechPath = pathWithout("espeak-ng");

async function stop(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null) return;
	const exited = once(child, "exit");
	child.kill("SIGTERM");
	await exited;
}

describe("the bot host on a first run", () => {
	afterAll(() => rmSync(noSpeechPath, { recursive: true, force: true }));

	it("keeps listening without Chromium, but answers 503 naming it and everything else it lacks", async () => {
		const port = await freePort();
		const { child, health } = await launchBotHost({
			port,
			secret: SECRET,
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
			});
		} finally {
			await stop(child);
		}
	});

	it("without a queue or a gateway to take work from, is not ready and names both", async () => {
		const port = await freePort();
		const { child, health } = await launchBotHost({
			port,
			secret: SECRET,
			sandboxPort: await freePort(),
			quiet: true,
			env: { SPAWN_QUEUE_URL: "", BOT_HOST_GATEWAY_URL: "" },
		});
		try {
			expect(health).toMatchObject({ ready: false, status: "unavailable", detail: NO_QUEUE, bots: 0, free: 0 });
			expect(health.problems?.slice(0, 2)).toEqual([NO_QUEUE, NO_GATEWAY]);
		} finally {
			await stop(child);
		}
	});

	it("makes the start step for tests and benches fail with the host's reason, not a health-check timeout", async () => {
		await expect(
			startBotHost({
				port: await freePort(),
				secret: SECRET,
				sandboxPort: await freePort(),
				quiet: true,
				env: { CHROMIUM_PATH: MISSING_CHROMIUM, ...WORK },
			}),
		).rejects.toThrow(`the bot host is not ready: ${NO_BROWSER}`);
	});

	it("is ready but degraded without espeak-ng, and says so", async () => {
		const port = await freePort();
		const { child, health } = await launchBotHost({
			port,
			secret: SECRET,
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
			missing: ["chromium", "espeak-ng"],
			command: "apt-get install -y chromium espeak-ng",
		});
		expect(debianPackagePlan(TEST_PACKAGES, { exists: (file) => file === "/usr/bin/espeak-ng", root: false, env: {} })).toEqual({
			action: "advise",
			missing: ["chromium", "sox"],
			command: "sudo apt-get install -y chromium sox",
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
