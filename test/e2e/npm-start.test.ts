/**
 * `npm start` with BOT_HOSTS=2 (scripts/start.mjs, a real process as a developer runs it): the
 * local spawn queue, one shared sandbox, two bot hosts local-1 and local-2 pulling from the queue
 * and the gateway publishing to it; the hosts pull through the gateway with their own
 * credentials. A bot sent with the printed key is claimed by one of the hosts and goes active;
 * a key put into URLs (`/ws?api_key=`) never shows in what the stack prints; Ctrl-C (SIGINT)
 * stops every process it started. The terminal gets a short banner; what wrangler, the sandbox and
 * the hosts print goes to the detail log it names, under the local state.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { CAPACITY_GATE_OFF } from "../../scripts/local-stack.mjs";
import { freePort } from "../../scripts/ports.mjs";
import { eventually } from "../shared/wait";
import { nativeId } from "./client";

const root = path.resolve(import.meta.dirname, "../..");

const portFree = (port: number) =>
	new Promise<boolean>((resolve) => {
		const server = createServer();
		server.once("error", () => resolve(false));
		server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
	});

const alive = (pid: number) => {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
};

describe("npm start with BOT_HOSTS=2", () => {
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-npm-start-"));
	let start: ChildProcess;
	let output = "";
	const ports = { gateway: 0, host: 0, sandbox: 0, queue: 0 };
	const banner = (label: string) => new RegExp(`^${label}:\\s+(.*)$`, "gm");
	const lines = (label: string) => [...output.matchAll(banner(label))].map((m) => m[1] as string);

	beforeAll(async () => {
		for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
		// The second host takes the port after BOT_HOST_PORT: find a pair that is free.
		while (!(await portFree(ports.host + 1))) ports.host = await freePort();
		start = spawn(process.execPath, ["scripts/start.mjs"], {
			cwd: root,
			stdio: ["ignore", "pipe", "pipe"],
			env: {
				...process.env,
				API_GATEWAY_HOST_PORT: String(ports.gateway),
				BOT_HOST_PORT: String(ports.host),
				SANDBOX_PORT: String(ports.sandbox),
				SPAWN_QUEUE_PORT: String(ports.queue),
				BOT_HOSTS: "2",
				LOCAL_STATE_DIR: stateDir,
				// Other work shares this machine's cores: the bots this test starts are its own count.
				...CAPACITY_GATE_OFF,
			},
		});
		start.stdout?.on("data", (chunk) => {
			output += String(chunk);
		});
		start.stderr?.on("data", (chunk) => {
			output += String(chunk);
		});
		await eventually(
			"the start banner",
			() => {
				if (start.exitCode !== null) throw new Error(`npm start exited with ${start.exitCode}:\n${output.slice(-3000)}`);
				return output.includes("Ctrl-C stops everything.") ? true : undefined;
			},
			170_000,
		).catch((err: Error) => {
			throw new Error(`${err.message}\n${output.slice(-3000)}`);
		});
	});
	afterAll(async () => {
		// Ctrl-C even when the test failed half-way, so nothing it started outlives it.
		if (start.exitCode === null && start.signalCode === null) {
			const exited = new Promise((resolve) => start.once("exit", resolve));
			start.kill("SIGINT");
			await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
		}
		rmSync(stateDir, { recursive: true, force: true });
	});

	it("runs the queue and two hosts pulling it; a bot sent with the printed key is claimed and goes active; Ctrl-C stops them all", async () => {
		const base = `http://127.0.0.1:${ports.gateway}`;
		expect(lines("Spawn queue")[0]).toContain(`http://127.0.0.1:${ports.queue}/client/v4/accounts/local/queues/bot-spawns`);
		const hosts = lines("Bot host").map((line) => /^(local-\d) on http:\/\/127\.0\.0\.1:(\d+) \(pid (\d+)\), (ready|degraded)/.exec(line));
		expect(hosts.map((h) => h?.[1])).toEqual(["local-1", "local-2"]);
		// The first on BOT_HOST_PORT, the next on a port none of the stack's other servers use.
		expect(Number(hosts[0]?.[2])).toBe(ports.host);
		const hostPorts = hosts.map((h) => Number(h?.[2]));
		expect(new Set([...hostPorts, ports.gateway, ports.sandbox, ports.queue]).size).toBe(5);
		const pids = hosts.map((h) => Number(h?.[3]));
		for (const port of hostPorts) expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
		const key = lines("API key")[0]?.split(/\s+/)[0] ?? "";
		expect(key).toMatch(/^vxa_/);

		// A short banner: from the name and version to "Ctrl-C", with every platform's sandbox link and the log's path.
		const printed = output.split("\n");
		const bannerStart = printed.findIndex((line) => /^meetbot-edge \d+\.\d+\.\d+/.test(line));
		const bannerEnd = printed.indexOf("Ctrl-C stops everything.");
		expect(bannerStart).toBeGreaterThanOrEqual(0);
		expect(bannerEnd - bannerStart + 1).toBeLessThanOrEqual(20);
		expect(lines("Dashboard")[0]).toContain(`${base}/`);
		const sandboxLinks = printed.filter((line) => /^ {2}(Google Meet|Zoom|Teams) +https:\/\//.test(line));
		expect(sandboxLinks.map((line) => line.trim().split(/ {2,}/)[0])).toEqual(["Google Meet", "Zoom", "Teams"]);
		const logFile = lines("Detail log")[0]?.split(/\s+/)[0] ?? "";
		expect(logFile.startsWith(path.join(stateDir, "logs", "start-"))).toBe(true);
		expect(existsSync(logFile)).toBe(true);
		// The detail is in the log, not on the terminal: wrangler's start and the sandbox's setting.
		await eventually(
			"wrangler's output in the log",
			() => (/Ready on http:\/\/127\.0\.0\.1/.test(readFileSync(logFile, "utf8")) ? true : undefined),
			10_000,
		);
		expect(readFileSync(logFile, "utf8")).toContain("BOT_HOST_SANDBOX=");
		expect(output).not.toMatch(/Ready on http|BOT_HOST_SANDBOX=/);

		const code = nativeId("google_meet");
		const opened = await fetch(`http://127.0.0.1:${ports.sandbox}/__sandbox/meetings/${code}`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ direct_join: true, participants: [{ name: "Alice", lines: ["Hello from the local fleet."] }] }),
		});
		expect(opened.status).toBe(200);
		const sent = await fetch(`${base}/bots`, {
			method: "POST",
			headers: { "X-API-Key": key, "content-type": "application/json" },
			body: JSON.stringify({ platform: "google_meet", native_meeting_id: code }),
		});
		expect(sent.status).toBe(201);
		const { id } = (await sent.json()) as { id: number };
		const meeting = async () =>
			(await (await fetch(`${base}/meetings/${id}`, { headers: { "X-API-Key": key } })).json()) as { status: string };
		await eventually("the bot active", async () => ((await meeting()).status === "active" ? true : undefined), 90_000);
		// Each host's lines carry its name in the log: exactly one of them launched the bot.
		const detail = readFileSync(logFile, "utf8");
		expect(detail).not.toContain(key);
		const launchedBy = ["local-1", "local-2"].filter((h) => new RegExp(`^\\[${h}\\] bot for meeting ${id} attempt 1\\b`, "m").test(detail));
		expect(launchedBy).toHaveLength(1);

		await fetch(`${base}/bots/google_meet/${code}`, { method: "DELETE", headers: { "X-API-Key": key } });
		await eventually("the meeting completed", async () => ((await meeting()).status === "completed" ? true : undefined), 60_000);

		// A key in URLs, as the reference's clients send it: the feed works, and nothing the stack prints carries the key.
		const minted = await fetch(`${base}/auth/keys`, { method: "POST", headers: { "X-API-Key": key } });
		const inUrl = ((await minted.json()) as { token: string }).token;
		const socket = new WebSocket(`ws://127.0.0.1:${ports.gateway}/ws?api_key=${inUrl}`);
		const frames: string[] = [];
		socket.on("message", (data) => frames.push(String(data)));
		await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
		socket.send("{not json");
		await eventually("the feed's error frame", () => (frames.length > 0 ? true : undefined), 10_000);
		socket.close();
		for (const path of [`/ws?api_key=${inUrl}`, `/meetings?limit=ten&api_key=${inUrl}`, `/no/such?token=${inUrl}`]) {
			const res = await fetch(`${base}${path}`, { headers: { "X-API-Key": inUrl } });
			expect(res.status, path).toBeGreaterThanOrEqual(400);
			expect(await res.text()).not.toContain(inUrl);
		}
		// The gateway logs each request as it answers it, into the detail log: wait until the last one is there.
		await eventually("the requests logged", () => (/\/no\/such/.test(readFileSync(logFile, "utf8")) ? true : undefined), 10_000);
		expect(readFileSync(logFile, "utf8")).not.toContain(inUrl);
		expect(output).not.toContain(inUrl);
		// A bot's whole life later, the terminal still holds only the banner and the set-up's few lines.
		expect(output.split("\n").length).toBeLessThanOrEqual(30);

		const exited = new Promise((resolve) => start.once("exit", resolve));
		start.kill("SIGINT");
		await exited;
		await eventually(
			"every host and the gateway gone",
			async () => {
				if (pids.some(alive)) return undefined;
				return fetch(`${base}/health`).then(
					() => undefined,
					() => true,
				);
			},
			30_000,
		);
		await expect(fetch(`http://127.0.0.1:${ports.sandbox}/__sandbox/health`)).rejects.toThrow();
		await expect(fetch(`http://127.0.0.1:${ports.queue}/`)).rejects.toThrow();
	});
});

describe("npm start that cannot start", () => {
	it("prints the error, the detail log's last lines and the log's path on the terminal, and exits 1", async () => {
		const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-npm-start-fail-"));
		// The sandbox's port is taken: the sandbox exits before it is ready, and the start stops there.
		const taken = createServer();
		await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
		const address = taken.address();
		const sandboxPort = typeof address === "object" && address ? address.port : 0;
		try {
			const child = spawn(process.execPath, ["scripts/start.mjs"], {
				cwd: root,
				stdio: ["ignore", "pipe", "pipe"],
				env: {
					...process.env,
					API_GATEWAY_HOST_PORT: String(await freePort()),
					BOT_HOST_PORT: String(await freePort()),
					SANDBOX_PORT: String(sandboxPort),
					SPAWN_QUEUE_PORT: String(await freePort()),
					LOCAL_STATE_DIR: stateDir,
				},
			});
			let terminal = "";
			child.stdout?.on("data", (chunk) => {
				terminal += String(chunk);
			});
			child.stderr?.on("data", (chunk) => {
				terminal += String(chunk);
			});
			const [code] = (await once(child, "exit")) as [number | null];
			expect(code, terminal).toBe(1);
			expect(terminal).toMatch(/^npm start failed: the sandbox exited \(code \d+\) before it was ready$/m);
			const logFile = /^The detail is in (\S+)$/m.exec(terminal)?.[1] ?? "";
			expect(logFile.startsWith(path.join(stateDir, "logs", "start-"))).toBe(true);
			const detail = readFileSync(logFile, "utf8");
			expect(detail).toContain("EADDRINUSE");
			// The cause reaches the terminal too, among the log's last lines.
			expect(terminal).toContain("The last lines of the detail log:");
			expect(terminal).toMatch(/^ {2}.*EADDRINUSE/m);
			expect(terminal).not.toContain("Ctrl-C stops everything.");
		} finally {
			taken.close();
			rmSync(stateDir, { recursive: true, force: true });
		}
	});
});
