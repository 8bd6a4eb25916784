/**
 * No browser outlives its bot host. Real bot host processes (`node bot-host/main.ts`) take a bot
 * into a sandbox meeting through the queue stand-in and the claim server, as in production; the
 * host is then killed with SIGKILL, as the OOM killer or a lost machine would, and /proc must
 * show none of its Chromium processes and none of their displays (Xvfb) left: unsandboxed (one
 * process per bot, as root here) and sandboxed (browser, zygotes, renderers and utility
 * processes, run as an unprivileged user). A host that starts reaps the browsers, displays and
 * profile directories a dead instance of itself left, and leaves a live instance's (same id,
 * another process) alone.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAPACITY_GATE_OFF } from "../../scripts/local-stack.mjs";
import { freePort } from "../../scripts/ports.mjs";
import { eventually, until } from "../../test/shared/wait.ts";
import { launchBotBrowser } from "../bot/browser.ts";
import { type BrowserOwner, ownerDirName } from "../bot/browser-owner.ts";
import { RUNTIME_PARTS } from "../sandbox/server.ts";
import { alive, browsersIn, deadProcess, displaysIn, hostDir, killAll, sessionOf } from "./browsers.ts";
import { scriptMeeting } from "./harness.ts";
import { type HostPeers, startHostPeers } from "./host-peers.ts";
import { finalStatus, statusesOf } from "./room.ts";
import { bundleForUnprivileged, type Runner } from "./unprivileged.ts";

const root = path.resolve(import.meta.dirname, "../..");
/** What the host's modules read beside themselves at start: the meeting page's media script and the sandbox's page runtime. */
const MAIN_ASSETS = [
	{ from: "bot/page-media.js", to: "page-media.js" },
	...RUNTIME_PARTS.map((part) => ({ from: `sandbox/pages/${part}`, to: `pages/${part}` })),
];

interface Host {
	child: ChildProcess;
	id: string;
	port: number;
	output: string[];
	/** The directory its browsers' profiles live in: it names the host id, pid and start time. */
	dir: string;
}

/** A host instance that is gone: a process that ran and ended, so its pid and start time name nothing live. */
async function deadInstance(hostId: string): Promise<BrowserOwner> {
	const { pid, started } = await deadProcess();
	return { hostId, pid, started, dir: path.join(tmpdir(), ownerDirName({ hostId, pid, started })) };
}

describe("bot host browsers and the host's death", () => {
	let peers: HostPeers;
	const hosts: Host[] = [];
	const leftovers: string[] = [];

	let runner: Runner | null = null;
	/** `node bot-host/main.ts` as the unprivileged user (unprivileged.ts), bundled once. */
	async function unprivilegedHost(): Promise<{ command: string[]; cwd: string }> {
		runner ??= await bundleForUnprivileged(path.join(root, "bot-host", "main.ts"), MAIN_ASSETS);
		return { command: runner.command(), cwd: runner.dir };
	}

	beforeAll(async () => {
		peers = await startHostPeers();
	});
	afterAll(async () => {
		runner?.remove();
		for (const host of hosts) {
			if (host.child.exitCode !== null || host.child.signalCode !== null) continue;
			const exited = once(host.child, "exit");
			host.child.kill("SIGKILL");
			await exited;
		}
		// Should a test fail half-way, no browser of it outlives it either.
		for (const dir of [...leftovers, ...hosts.map((h) => h.dir)]) {
			killAll([...browsersIn(dir), ...displaysIn(dir)]);
			rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
		}
		await peers.close();
	});

	/**
	 * Starts `node bot-host/main.ts` as `id` and waits for its /health (it answers once it has
	 * reaped). With `work` it pulls from the queue and claims as `id`; `unprivileged` runs it as
	 * nobody where this test runs as root, so Chromium can keep its sandbox.
	 */
	async function startHost(id: string, options: { work?: boolean; env?: Record<string, string>; unprivileged?: boolean } = {}) {
		const port = await freePort();
		const queueId = `orphans-${id}`;
		const run = options.unprivileged ? await unprivilegedHost() : { command: [process.execPath, "bot-host/main.ts"], cwd: root };
		const [command = "", ...args] = run.command;
		const child = spawn(command, args, {
			cwd: run.cwd,
			stdio: ["ignore", "pipe", "pipe"],
			env: {
				...process.env,
				BOT_HOST_PORT: String(port),
				BOT_HOST_ID: id,
				BOT_HOST_SANDBOX: `${peers.sandbox.port}:${peers.sandbox.spkiHash}`,
				OUTBOUND_ALLOW_PRIVATE: "true",
				BOT_CHROMIUM_SANDBOX: "off",
				...(options.work
					? {
							BOT_HOST_CREDENTIAL: peers.claims.credentialFor(id),
							SPAWN_QUEUE_URL: peers.queue.url(queueId),
							BOT_HOST_GATEWAY_URL: peers.claims.url,
							// Other work shares this machine's cores: the bots this test starts are its own count.
							...CAPACITY_GATE_OFF,
							BOT_HOST_BACKOFF_MIN_MS: "100",
							BOT_HOST_BACKOFF_MAX_MS: "300",
						}
					: {}),
				...options.env,
			},
		});
		const output: string[] = [];
		for (const stream of [child.stdout, child.stderr]) stream?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
		const pid = child.pid ?? 0;
		const host: Host = {
			child,
			id,
			port,
			output,
			dir: hostDir(id, pid),
		};
		hosts.push(host);
		await eventually(
			`bot host ${id} answering /health`,
			async () => {
				if (child.exitCode !== null) throw new Error(`bot host ${id} exited ${child.exitCode}: ${output.join("")}`);
				const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
				return res ? res.status : undefined;
			},
			30_000,
		);
		return { host, queueId };
	}

	/** Sends a bot into a sandbox meeting through a host's queue and waits for it in the call. */
	async function botIn(queueId: string) {
		const meeting = scriptMeeting(peers, "google_meet", { direct_join: true, participants: [{ name: "Orla" }] });
		peers.queue.publish(queueId, peers.claims.offer({ ...meeting.request, attempt: 1 }));
		await peers.room.until(meeting.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		return meeting;
	}

	it("SIGKILL takes an unsandboxed host's Chromium and display with it; a new host reaps a dead instance's strays but not a live one's", {
		timeout: 180_000,
	}, async () => {
		const id = "orphans-host";
		const { host: live, queueId } = await startHost(id, { work: true });
		const meeting = await botIn(queueId);
		const liveBrowsers = browsersIn(live.dir);
		expect(liveBrowsers.length).toBeGreaterThan(0);
		const liveDisplays = displaysIn(live.dir);
		expect(liveDisplays).toHaveLength(1);

		// A stray of a dead instance of the same id: a Chromium launched the production way under that
		// instance's directory (as one whose host died before setpriv armed the signal), and one of another host.
		const dead = await deadInstance(id);
		const otherHost = await deadInstance("another-host");
		leftovers.push(dead.dir, otherHost.dir);
		mkdirSync(otherHost.dir, { recursive: true });
		const stray = await launchBotBrowser("stray", {
			executablePath: "/usr/bin/chromium",
			extraFlags: [],
			fakeDevices: true,
			sandbox: false,
			owner: dead,
		});
		try {
			const strays = [...browsersIn(dead.dir), ...displaysIn(dead.dir)];
			expect(browsersIn(dead.dir).length).toBeGreaterThan(0);
			expect(displaysIn(dead.dir)).toHaveLength(1);

			// A second instance of the same host id starts while the first still runs.
			const { host: sibling } = await startHost(id);
			// A process on its way out loses its command line before it stops running: wait for both.
			await until(
				"the stray Chromium and its display gone",
				() => browsersIn(dead.dir).length + displaysIn(dead.dir).length === 0 && strays.filter(alive).length === 0,
			);
			expect(existsSync(dead.dir)).toBe(false);
			expect(sibling.output.join("")).toMatch(
				new RegExp(
					`bot host: reaped (?:[2-9]|[1-9]\\d+) stray Chromium and Xvfb process\\(es\\) and 1 profile directory left by a dead instance of ${id}\\n`,
				),
			);
			// The live instance's browser, display and bot are untouched, and so is another host's directory.
			expect(liveBrowsers.filter(alive)).toEqual(liveBrowsers);
			expect(liveDisplays.filter(alive)).toEqual(liveDisplays);
			expect(existsSync(live.dir)).toBe(true);
			expect(finalStatus(peers.room.received(meeting.meetingId))).toBeUndefined();
			expect(peers.sandbox.observed(meeting.nativeId)?.attendees[0]).toMatchObject({ left: false });
			expect(existsSync(otherHost.dir)).toBe(true);

			// The live one dies unannounced: its browser goes with it, leaving only its profile directory.
			const exited = once(live.child, "exit");
			live.child.kill("SIGKILL");
			await exited;
			await until(
				"no Chromium or display of the killed host left",
				() =>
					browsersIn(live.dir).length + displaysIn(live.dir).length === 0 && [...liveBrowsers, ...liveDisplays].every((pid) => !alive(pid)),
			);
			expect(existsSync(live.dir)).toBe(true);

			// The next start of that host id removes it; the sibling, still running, kept it.
			const siblingExited = once(sibling.child, "exit");
			sibling.child.kill("SIGTERM");
			await siblingExited;
			const { host: restarted } = await startHost(id);
			expect(existsSync(live.dir)).toBe(false);
			expect(restarted.output.join("")).toContain(
				`bot host: reaped 0 stray Chromium and Xvfb process(es) and 1 profile directory left by a dead instance of ${id}`,
			);
			expect(existsSync(otherHost.dir)).toBe(true);
		} finally {
			await stray.close();
		}
	});

	it("SIGKILL takes a sandboxed host's Chromium with it: zygotes, renderers, utility processes and its display too", {
		timeout: 180_000,
	}, async () => {
		// Where the test runs as root the host runs as nobody, with a home of its own for Chromium's crash database.
		const home = mkdtempSync(path.join(tmpdir(), "orphans-home-"));
		leftovers.push(home);
		chmodSync(home, 0o777);
		const { host, queueId } = await startHost("orphans-sandboxed", {
			work: true,
			unprivileged: true,
			env: { BOT_CHROMIUM_SANDBOX: "on", HOME: home },
		});
		await botIn(queueId);
		// The browser process is the one without a --type; its helpers each name theirs.
		const [browser] = browsersIn(host.dir).filter((pid) => !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type="));
		expect(browser).toBeDefined();
		const tree = sessionOf(browser ?? 0);
		const kinds = tree.map((pid) => /--type=(\w+)/.exec(readFileSync(`/proc/${pid}/cmdline`, "utf8"))?.[1] ?? "browser");
		expect(new Set(kinds)).toEqual(new Set(["browser", "zygote", "renderer", "utility"]));
		const displays = displaysIn(host.dir);
		expect(displays).toHaveLength(1);

		const exited = once(host.child, "exit");
		host.child.kill("SIGKILL");
		await exited;
		await until(
			"no process of the killed host's Chromium left",
			() => [...tree, ...displays].every((pid) => !alive(pid)) && browsersIn(host.dir).length + displaysIn(host.dir).length === 0,
		);
		expect(sessionOf(browser ?? 0)).toEqual([]);
	});
});
