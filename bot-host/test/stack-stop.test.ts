/**
 * Stopping the local stack (`npm start`'s SIGTERM → scripts/processes.mjs stopAll) takes its bot
 * hosts' browsers down by itself, not only through each browser's parent-death signal: it waits
 * (bounded) for each host to see its bots out of their meetings and exit, and kills a host still
 * running after that together with everything it started. The stack here is a real process
 * (stack-fixture.mjs) running a real bot host with a bot in a sandbox meeting.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAPACITY_GATE_OFF } from "../../scripts/local-stack.mjs";
import { freePort } from "../../scripts/ports.mjs";
import { BOT_HOST_STOP_MS } from "../../scripts/processes.mjs";
import { eventually, until } from "../../test/shared/wait.ts";
import { alive, browsersIn, displaysIn, hostDir, killAll, pathWithout } from "./browsers.ts";
import { scriptMeeting } from "./harness.ts";
import { type HostPeers, startHostPeers } from "./host-peers.ts";
import { finalStatus, statusesOf } from "./room.ts";

describe("stopping the local stack", () => {
	let peers: HostPeers;
	const noSetpriv = pathWithout("setpriv");
	const started: { stack: ChildProcess; host: number; dir: string }[] = [];

	beforeAll(async () => {
		peers = await startHostPeers();
	});
	afterAll(async () => {
		// Should a test fail half-way, nothing it started outlives it.
		for (const { stack, host, dir } of started) {
			killAll([stack.pid ?? 0, host, ...browsersIn(dir), ...displaysIn(dir)].filter((pid) => pid > 0 && alive(pid)));
			rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
		}
		rmSync(noSetpriv, { recursive: true, force: true });
		await peers.close();
	});

	/** The stack with one bot host as `id` and a bot of it active in a sandbox meeting. */
	async function stackWithBot(id: string, env: Record<string, string> = {}) {
		const queueId = `stack-${id}`;
		const options = {
			port: await freePort(),
			credential: peers.claims.credentialFor(id),
			sandbox: `${peers.sandbox.port}:${peers.sandbox.spkiHash}`,
			id,
			gatewayUrl: peers.claims.url,
			queueUrl: peers.queue.url(queueId),
			env: {
				BOT_CHROMIUM_SANDBOX: "off",
				// Other work shares this machine's cores: the bots this test starts are its own count.
				...CAPACITY_GATE_OFF,
				BOT_HOST_BACKOFF_MIN_MS: "100",
				BOT_HOST_BACKOFF_MAX_MS: "300",
				...env,
			},
		};
		const stack = spawn(process.execPath, ["bot-host/test/stack-fixture.mjs", JSON.stringify(options)], {
			stdio: ["ignore", "pipe", "inherit"],
		});
		let output = "";
		stack.stdout?.on("data", (chunk: Buffer) => {
			output += chunk.toString();
		});
		const host = await eventually(
			"the stack's bot host",
			() => {
				if (stack.exitCode !== null) throw new Error(`the stack exited ${stack.exitCode}: ${output}`);
				const match = /bot host pid (\d+)/.exec(output);
				return match ? Number(match[1]) : undefined;
			},
			60_000,
		);
		const dir = hostDir(id, host);
		started.push({ stack, host, dir });
		const meeting = scriptMeeting(peers, "google_meet", { direct_join: true, participants: [{ name: "Stan" }] });
		peers.queue.publish(queueId, peers.claims.offer({ ...meeting.request, attempt: 1 }));
		await peers.room.until(meeting.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		// The browser and the display it runs on: both must go with the host.
		const browsers = [...browsersIn(dir), ...displaysIn(dir)];
		expect(displaysIn(dir)).toHaveLength(1);
		expect(browsersIn(dir).length).toBeGreaterThan(0);
		return { stack, host, port: options.port, dir, meeting, browsers };
	}

	it("exits only once its host has seen the bot out of the meeting and closed its browser", { timeout: 120_000 }, async () => {
		const { stack, host, dir, meeting, browsers } = await stackWithBot("stack-drains");
		const exited = once(stack, "exit");
		stack.kill("SIGTERM");
		await exited;
		// By the time the stack is gone, so are its host and the host's browser: nothing is left to wait for.
		expect(alive(host)).toBe(false);
		expect(browsers.filter(alive)).toEqual([]);
		expect([...browsersIn(dir), ...displaysIn(dir)]).toEqual([]);
		expect(finalStatus(peers.room.received(meeting.meetingId))).toMatchObject({ status: "failed", failure_cause: "host_drained" });
		expect(peers.sandbox.observed(meeting.nativeId)?.attendees[0]).toMatchObject({ left: true });
	});

	it(`kills a host still running after ${BOT_HOST_STOP_MS} ms together with its browser, even where setpriv is missing`, {
		timeout: 120_000,
	}, async () => {
		// Without setpriv the browser would outlive its host: only the stack's own kill can take it down.
		const { stack, host, port, dir, browsers } = await stackWithBot("stack-hung", { PATH: noSetpriv });
		const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { problems: string[] };
		expect(health.problems).toContain(
			"setpriv not found on PATH (install the Debian package util-linux): a killed bot host leaves its browsers running until it starts again",
		);
		// A host that cannot drain: stopped, it hears neither SIGTERM.
		process.kill(host, "SIGSTOP");
		const exited = once(stack, "exit");
		stack.kill("SIGTERM");
		const [code] = await exited;
		expect(code).toBe(0);
		await until(
			"the hung host and its browser gone",
			() => !alive(host) && browsers.every((pid) => !alive(pid)) && browsersIn(dir).length + displaysIn(dir).length === 0,
		);
	});
});
