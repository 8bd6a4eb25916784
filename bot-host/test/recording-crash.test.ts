/**
 * A real bot host process (`node bot-host/main.ts`, pulling and claiming as in production) is
 * SIGKILLed in the middle of a recorded meeting, as the OOM killer or a lost machine would do it.
 * Every part it shipped before stays with the Worker (the providers' receiver stands in for it):
 * the joined parts play, and cover the meeting up to about one part before the kill. Its encoder
 * died with it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAPACITY_GATE_OFF } from "../../scripts/local-stack.mjs";
import { freePort } from "../../scripts/ports.mjs";
import { RECORDING_PART_SECONDS, VIDEO_FRAME_RATE, VIDEO_RESOLUTIONS } from "../../src/bot-channel/protocol.ts";
import { until } from "../../test/shared/wait.ts";
import { browsersIn, displaysIn, hostDir, killAll } from "./browsers.ts";
import { scriptMeeting } from "./harness.ts";
import { type HostPeers, startHostPeers } from "./host-peers.ts";
import { playedSeconds, probe, withFile } from "./media-files.ts";
import { type Providers, startProviders } from "./providers.ts";
import { statusesOf } from "./room.ts";

/** Live processes whose command line names `marker` (the encoder names its files). */
function processesNaming(marker: string): number[] {
	return readdirSync("/proc")
		.filter((entry) => /^\d+$/.test(entry))
		.filter((entry) => {
			try {
				const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
				return (
					stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z" &&
					readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)
				);
			} catch {
				return false;
			}
		})
		.map(Number);
}

describe("a bot host killed during a recorded meeting", () => {
	let peers: HostPeers;
	let providers: Providers;
	let child: ChildProcess | null = null;
	let dir = "";
	beforeAll(async () => {
		peers = await startHostPeers();
		providers = await startProviders();
	});
	afterAll(async () => {
		if (child && child.exitCode === null && child.signalCode === null) {
			const exited = once(child, "exit");
			child.kill("SIGKILL");
			await exited;
		}
		if (dir) {
			killAll([...browsersIn(dir), ...displaysIn(dir), ...processesNaming(dir)]);
			rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
		}
		await providers.close();
		await peers.close();
	});

	it("keeps every part shipped before the kill: joined, they play up to about one part before it", async () => {
		const port = await freePort();
		const queueId = "recording-crash";
		child = spawn(process.execPath, ["bot-host/main.ts"], {
			stdio: ["ignore", "pipe", "pipe"],
			env: {
				...process.env,
				BOT_HOST_PORT: String(port),
				BOT_HOST_CREDENTIAL: peers.claims.credentialFor("crash-host"),
				BOT_HOST_ID: "crash-host",
				SPAWN_QUEUE_URL: peers.queue.url(queueId),
				BOT_HOST_GATEWAY_URL: peers.claims.url,
				BOT_HOST_SANDBOX: `${peers.sandbox.port}:${peers.sandbox.spkiHash}`,
				OUTBOUND_ALLOW_PRIVATE: "true",
				...CAPACITY_GATE_OFF,
				BOT_HOST_BACKOFF_MIN_MS: "100",
				BOT_HOST_BACKOFF_MAX_MS: "300",
			},
		});
		dir = hostDir("crash-host", child.pid ?? 0);
		await until("the host healthy", async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.status === 200, 30_000);

		const meeting = scriptMeeting(
			peers,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Ada Lovelace", lines: ["The engine computes the numbers in order."] }] },
			{
				recording_enabled: true,
				recording: { video: true, ...VIDEO_RESOLUTIONS["720p"], frame_rate: VIDEO_FRAME_RATE, audio_format: "opus" },
				recording_parts_url: providers.partsUrl("killed"),
			},
		);
		peers.queue.publish(queueId, peers.claims.offer({ ...meeting.request, attempt: 1 }));
		await peers.room.until(meeting.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		const activeAt = Date.parse(statusesOf(peers.room.received(meeting.meetingId)).find((s) => s.status === "active")?.timestamp ?? "");
		const videoParts = () => providers.parts.filter((p) => p.recording === "killed" && p.type === "video");
		await until("two video parts shipped", () => videoParts().length >= 2, 60_000);
		// The kill lands inside the next part's time.
		await sleep((RECORDING_PART_SECONDS / 2) * 1000);
		const encoders = processesNaming(`${dir}/bot-recording-`);
		expect(encoders.length).toBeGreaterThan(0);
		const killedAt = Date.now();
		const exited = once(child, "exit");
		child.kill("SIGKILL");
		await exited;
		const inCall = (killedAt - activeAt) / 1000;

		// The encoder died with its host (setpriv --pdeathsig), as its browser did.
		await until("the encoder gone", () => processesNaming(`${dir}/bot-recording-`).length === 0, 10_000);
		expect(providers.completions.some((c) => c.recording === "killed")).toBe(false);
		// Each part was sent once, in order, with no gap.
		expect(videoParts().map((p) => p.n)).toEqual(Array.from({ length: videoParts().length }, (_, i) => i + 1));

		for (const type of ["video", "audio"] as const) {
			await withFile(providers.joined("killed", type), async (file) => {
				const info = await probe(file);
				if (type === "video")
					expect(info.streams.find((s) => s.codec_type === "video")).toMatchObject({ codec_name: "vp8", width: 1280, height: 720 });
				expect(info.streams.find((s) => s.codec_type === "audio")?.codec_name).toBe("opus");
				const played = await playedSeconds(file, type === "video" ? "v" : "a");
				// All but the last part: the kill came within one part (and one cluster the encoder had not written) of the last one shipped.
				expect(played).toBeGreaterThan(inCall - RECORDING_PART_SECONDS - 2);
				expect(played).toBeLessThanOrEqual(inCall + 1);
				// What the Worker would be told the file covers, from the last part's header.
				const last = providers.parts.filter((p) => p.recording === "killed" && p.type === type).at(-1);
				expect(Math.abs((last?.mediaSeconds ?? 0) - played)).toBeLessThanOrEqual(2.5);
			});
		}
	});
});
