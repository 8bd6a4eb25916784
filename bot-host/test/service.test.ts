/**
 * The bot host itself: its HTTP face (only /health and /metrics: work arrives by pulling),
 * launching a claimed bot, stop by the leave command, a crashed bot, the channel's delivery
 * rules (token, hello, re-send after reconnect), capacity, drain and shutdown.
 */
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "../../test/shared/wait.ts";
import { browserOwner } from "../bot/browser-owner.ts";
import { startBotHost } from "../service.ts";
import { FakeProc } from "./fake-proc.ts";
import { CHANNEL_TOKEN, ROOMY_MACHINE, spawnBot, useWorld } from "./harness.ts";
import { finalStatus, statusesOf } from "./room.ts";

describe("bot host service", () => {
	const world = useWorld();

	it("answers /health and /metrics without a secret, and has no spawn or stop route any more", async () => {
		const health = await fetch(`${world.hostUrl}/health`);
		expect(health.status).toBe(200);
		expect(await health.json()).toEqual({
			status: "ok",
			problems: [],
			bots: 0,
			free: 20,
			limited_by: [],
			refusing: null,
			refusing_since: null,
		});
		const metrics = await fetch(`${world.hostUrl}/metrics`);
		expect(metrics.status).toBe(200);
		expect(await metrics.json()).toEqual({
			host_id: null,
			version: null,
			slots: 20,
			running: 0,
			launching: 0,
			free: 20,
			draining: false,
			mem_available_mb: 16_000,
			load1: 0,
			disk_free_mb: 64_000,
			// One more bot: its recording at the 1 GiB cap and a 256 MB profile, and 256 MB kept free.
			disk_needed_mb: 1_536,
			cpu_pressure: 0,
			mem_pressure: 0,
			cores: 16,
			bots_cpu_pct: 0,
			// No bot measured yet: the budget.
			cpu_per_bot_pct: 15,
			cpu_per_bot_measured: false,
			cpu_for_bots_pct: 1_360,
			limited_by: [],
			refusing: null,
			refusing_since: null,
		});
		// Work arrives by pulling: nothing can be pushed to a host.
		const spawn = await fetch(`${world.hostUrl}/bots`, { method: "POST", body: "{}" });
		expect(spawn.status).toBe(405);
		expect((await fetch(`${world.hostUrl}/bots/1`)).status).toBe(404);
	});

	it("without a browser, or without a queue to take work from, is not ready and has no free slot, naming what is missing", async () => {
		const missing = path.join(tmpdir(), "no-chromium-here", "chromium");
		const detail = `Chromium not found at ${missing} (install the Debian package chromium, or set CHROMIUM_PATH to a Chromium binary)`;
		const noQueue = "SPAWN_QUEUE_URL is not set: this host has no queue to take work from";
		const bare = await startBotHost({
			port: 0,
			browser: { ...world.browser, executablePath: missing },
			blockers: () => [noQueue],
			capacity: { readers: ROOMY_MACHINE },
			log: () => {},
		});
		try {
			const health = await fetch(`http://127.0.0.1:${bare.port}/health`);
			expect(health.status).toBe(503);
			expect(await health.json()).toMatchObject({ status: "unavailable", detail, problems: [detail, noQueue], bots: 0, free: 0 });
			expect(bare.capacity().free).toBe(0);
		} finally {
			await bare.shutdown();
		}
	});

	it("without disk for one more bot's recording, takes no work and says disk is why on /health and /metrics", async () => {
		const short = await startBotHost({
			port: 0,
			browser: world.browser,
			// 10 MB caps, 5 MB profiles, no reserve: one more bot needs 15 MB, and 14 MB are free.
			recordingMaxBytes: 10 * 1024 * 1024,
			capacity: { profileDiskMb: 5, diskReserveMb: 0, readers: { ...ROOMY_MACHINE, diskFreeMb: () => 14 } },
			log: () => {},
		});
		try {
			const detail = `not enough free disk for another bot: 14 MB free in ${tmpdir()}, 15 MB needed (what running bots' recordings and browser profiles may still take, one more bot's recording at its cap and profile at its limit, and the reserve kept free); no work is taken until there is`;
			const health = await fetch(`http://127.0.0.1:${short.port}/health`);
			expect(health.status).toBe(200);
			expect(await health.json()).toEqual({
				status: "degraded",
				detail,
				problems: [detail],
				bots: 0,
				free: 0,
				limited_by: ["disk"],
				refusing: "too little disk: 14 MB free, 15 MB needed",
				refusing_since: expect.any(String),
			});
			const metrics = await fetch(`http://127.0.0.1:${short.port}/metrics`);
			expect(await metrics.json()).toMatchObject({ free: 0, disk_free_mb: 14, disk_needed_mb: 15, limited_by: ["disk"] });
		} finally {
			await short.shutdown();
		}
	});

	it("under pressure stays ready (200), but says on /health and /metrics that it takes no work and why, logging it once", async () => {
		// Another tenant presses the machine's CPU to 95%: extreme, so even this host's first bot waits.
		const proc = new FakeProc().pressure("cpu", 95).pressure("memory", 0).meminfo(16_000);
		const logs: string[] = [];
		const pressed = await startBotHost({
			port: 0,
			browser: world.browser,
			capacity: { procDir: proc.dir, readers: { load1: () => 0, cores: () => 2, diskFreeMb: () => 64_000 } },
			log: (line) => logs.push(line),
		});
		const url = `http://127.0.0.1:${pressed.port}`;
		const health = async () => {
			const res = await fetch(`${url}/health`);
			return { status: res.status, body: (await res.json()) as Record<string, unknown> };
		};
		const why = "CPU pressure 95% (limit 90% while this host runs no bot)";
		try {
			const refusing = await health();
			expect(refusing).toEqual({
				status: 200,
				body: { status: "ok", problems: [], bots: 0, free: 0, limited_by: ["cpu"], refusing: why, refusing_since: expect.any(String) },
			});
			const since = refusing.body.refusing_since as string;
			expect(Date.parse(since)).toBeLessThanOrEqual(Date.now());
			const metrics = await (await fetch(`${url}/metrics`)).json();
			expect(metrics).toMatchObject({
				free: 0,
				cpu_pressure: 95,
				mem_pressure: 0,
				mem_available_mb: 16_000,
				bots_cpu_pct: 0,
				cpu_per_bot_pct: 15,
				limited_by: ["cpu"],
				refusing: why,
				refusing_since: since,
			});
			// Memory pressure joins in: still refusing since the same moment, both named, and no new log line.
			proc.pressure("memory", 92.5);
			expect((await health()).body).toMatchObject({
				free: 0,
				limited_by: ["cpu", "memory_pressure"],
				refusing: `${why}; memory pressure 92.5% (limit 90% while this host runs no bot)`,
				refusing_since: since,
			});
			for (let i = 0; i < 3; i++) await health();
			expect(logs).toEqual([`bot host: taking no work: ${why}`]);

			// The other tenant calms to 60%: below the lone-bot limit, so the first bot is taken at once.
			proc.pressure("cpu", 60).pressure("memory", 0);
			expect(await health()).toEqual({
				status: 200,
				body: { status: "ok", problems: [], bots: 0, free: 11, limited_by: [], refusing: null, refusing_since: null },
			});
			await health();
			expect(logs).toHaveLength(2);
			expect(logs[1]).toMatch(/^bot host: taking work again \(11 free\) after refusing for \d+ s$/);
		} finally {
			await pressed.shutdown();
			proc.remove();
		}
	});

	it("listens on loopback only, unless told to bind elsewhere", async () => {
		// 127.0.0.2 reaches this machine too, but not a socket bound to 127.0.0.1 alone.
		await expect(fetch(`http://127.0.0.2:${world.host.port}/health`)).rejects.toThrow();
		const wide = await startBotHost({ port: 0, bind: "0.0.0.0", browser: world.browser, log: () => {} });
		try {
			expect((await fetch(`http://127.0.0.2:${wide.port}/health`)).status).toBe(200);
		} finally {
			await wide.shutdown();
		}
	});

	it("stops a bot on the leave command: it leaves and reports completed / stopped", async () => {
		const bot = await spawnBot(world, "google_meet", { direct_join: true, participants: [{ name: "Carol" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		// A second launch of the same attempt is refused: the claim went to one host, once.
		expect(() => world.host.launch(bot.session.request)).toThrow(`a bot is already running for meeting ${bot.meetingId} (attempt 1)`);
		world.room.command(bot.meetingId, { action: "leave" });
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({ status: "completed", completion_reason: "stopped", reason: "asked to leave (leave command)" });
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: true });
		await bot.session.finished;
		await new Promise((resolve) => setImmediate(resolve));
		// Its Chromium profile, made in the host's own directory, is gone with it.
		const profiles = browserOwner().dir;
		expect(readdirSync(profiles).filter((name) => name.startsWith(`bot-profile-${bot.meetingId}-`))).toEqual([]);
		expect(world.host.bots.has(bot.meetingId)).toBe(false);
	});

	it("ignores speech from a bot spawned without the voice agent, and keeps its microphone off", async () => {
		const bot = await spawnBot(world, "zoom", { direct_join: true, participants: [{ name: "Jo" }] }, { voice_agent_enabled: false });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		world.room.command(bot.meetingId, { action: "speak", text: "This should never be heard." });
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		expect(world.room.received(bot.meetingId).filter((m) => m.type === "event")).toEqual([]);
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ mic_history: [false], left: true });
		expect(world.logs).toContain("command speak ignored: voice agent disabled for this bot");
	});

	it("leaves the meeting when the room refuses its channel token", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Kim" }] },
			{ channelToken: "expired-token" },
		);
		const session = world.host.bots.get(bot.meetingId);
		await session?.finished;
		expect(world.room.received(bot.meetingId)).toEqual([]);
		expect(world.logs).toContain("channel: the room refused the token (401)");
		// Nobody is left behind in the meeting (it may not have got as far as joining).
		expect(world.sandbox.observed(bot.nativeId)?.attendees.filter((a) => !a.left)).toEqual([]);
	});

	it("types the passcode on Zoom's passcode screen, and fails the join when it is wrong", async () => {
		const scenario = { direct_join: true, passcode: "s3cret", participants: [{ name: "Lee" }] };
		// A stale pwd in the link makes the web client ask for the passcode in its form.
		const stale = (id: string) => `https://zoom.us/j/${id}?pwd=stale`;
		const typed = await spawnBot(world, "zoom", scenario, { passcode: "s3cret", linkFor: stale });
		const wrong = await spawnBot(world, "zoom", scenario, { passcode: "nope", linkFor: stale });
		await world.room.until(typed.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		world.room.command(typed.meetingId, { action: "leave" });
		expect(await world.room.until(typed.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "stopped" });
		expect(world.sandbox.observed(typed.nativeId)?.attendees[0]).toMatchObject({ passcode_ok: true, left: true });
		const refused = await world.room.until(wrong.meetingId, finalStatus);
		expect(refused).toMatchObject({ status: "failed", completion_reason: "join_failure" });
		expect(refused.reason).toBe("meeting not found (invalid link, code or passcode)");
		expect(world.sandbox.observed(wrong.nativeId)?.attendees[0]).toMatchObject({ passcode_ok: false });
	});

	it("asks to join again when the Teams lobby connection drops", async () => {
		const bot = await spawnBot(world, "teams", { lobby_drop_after_ms: 600, admit_after_ms: 1_200, participants: [{ name: "Oli" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		expect(statusesOf(world.room.received(bot.meetingId)).map((s) => s.status)).toEqual([
			"joining",
			"awaiting_admission",
			"active",
			"completed",
		]);
		const attendees = world.sandbox.observed(bot.nativeId)?.attendees ?? [];
		expect(attendees.map((a) => a.phases)).toEqual([
			["lobby", "left"],
			["lobby", "in_call", "left"],
		]);
		expect(world.logs).toContain("the lobby connection dropped; asked to join again");
	});

	it("sends the channel token as a Bearer header only, never in the URL", async () => {
		const bot = await spawnBot(world, "teams", { not_found: true });
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({ status: "failed", completion_reason: "join_failure", failure_stage: "joining" });
		const connection = world.room.connections.find((c) => c.meetingId === bot.meetingId);
		expect(connection).toEqual({ meetingId: bot.meetingId, authorization: `Bearer ${CHANNEL_TOKEN}`, queryToken: null });
	});

	it("re-sends unacked messages after a reconnect, after a hello with the last acked seq", async () => {
		world.room.acking = false;
		const bot = await spawnBot(world, "zoom", { lobby_forever: true }, { automatic_leave: { max_wait_for_admission: 2_500 } });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "awaiting_admission"));
		world.room.acking = true;
		world.room.dropConnections(bot.meetingId);
		await world.room.until(bot.meetingId, (r) => r.filter((m) => m.type === "hello").length >= 2);
		await world.room.until(bot.meetingId, finalStatus);
		const received = world.room.received(bot.meetingId);
		const secondHello = received.findLastIndex((m) => m.type === "hello");
		expect(received[secondHello]).toEqual({ type: "hello", last_acked_seq: 0 });
		const resent = received.slice(secondHello + 1, secondHello + 3);
		expect(resent).toMatchObject([
			{ seq: 1, type: "status", status: "joining" },
			{ seq: 2, type: "status", status: "awaiting_admission" },
		]);
		expect(statusesOf(received).map((s) => s.status)).toEqual(["joining", "awaiting_admission", "failed"]);
	});

	it("leaves with startup_alone when no one else ever joins", async () => {
		const bot = await spawnBot(world, "google_meet", { direct_join: true }, { automatic_leave: { no_one_joined_timeout: 1_000 } });
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({
			status: "completed",
			completion_reason: "startup_alone",
			reason: "no one else joined within 1 s of admission (no_one_joined_timeout)",
		});
	});

	it("leaves on max_bot_time and on silence_timeout, each with its own reason", async () => {
		const capped = await spawnBot(
			world,
			"teams",
			{ direct_join: true, participants: [{ name: "Hal" }] },
			{ automatic_leave: { max_bot_time: 2_500 } },
		);
		const quiet = await spawnBot(
			world,
			"zoom",
			{ direct_join: true, participants: [{ name: "Ivy" }] },
			{ automatic_leave: { silence_timeout: 1_500 } },
		);
		expect(await world.room.until(capped.meetingId, finalStatus)).toMatchObject({
			status: "completed",
			completion_reason: "max_bot_time_exceeded",
			reason: "the bot's time limit of 2.5 s was reached (max_bot_time)",
		});
		expect(await world.room.until(quiet.meetingId, finalStatus)).toMatchObject({
			status: "completed",
			completion_reason: "stopped",
			reason: "silence_timeout: no one spoke for 1.5 s",
		});
		expect(world.sandbox.observed(capped.nativeId)?.attendees[0]).toMatchObject({ left: true });
	});

	it("reports a crashed Chromium as failed with a reason and keeps serving", async () => {
		const bot = await spawnBot(world, "teams", { direct_join: true, participants: [{ name: "Dana" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		const pid = world.host.bots.get(bot.meetingId)?.browserPid;
		expect(pid).toBeTypeOf("number");
		process.kill(pid as number, "SIGKILL");
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({ status: "failed", failure_stage: "active" });
		expect(last.reason).toMatch(/^browser crashed: (Chromium disconnected|page crashed)/);
		const health = await fetch(`${world.hostUrl}/health`);
		expect(await health.json()).toMatchObject({ status: "ok" });
	});

	it("shuts down gracefully: every bot leaves its meeting and reports before the host stops", async () => {
		const bot = await spawnBot(world, "zoom", { direct_join: true, participants: [{ name: "Erin" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		await world.host.shutdown();
		const last = finalStatus(world.room.received(bot.meetingId));
		expect(last).toMatchObject({ status: "completed", completion_reason: "stopped" });
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: true });
	});
});

describe("bot host at capacity and draining", () => {
	const world = useWorld({ slots: 1 });

	it("has no free slot while BOT_HOST_SLOTS bots run, and one again when a bot ends", async () => {
		expect(world.host.capacity()).toMatchObject({ slots: 1, running: 0, launching: 0, free: 1 });
		const first = await spawnBot(world, "zoom", { lobby_forever: true });
		// Launching until it reaches the lobby, then running; the slot is taken either way.
		expect(world.host.capacity()).toMatchObject({ running: 0, launching: 1, free: 0 });
		await world.room.until(first.meetingId, (r) => statusesOf(r).some((s) => s.status === "awaiting_admission"));
		expect(world.host.capacity()).toMatchObject({ running: 1, launching: 0, free: 0 });
		// Full is busy, not unhealthy: 200, saying why no work is taken.
		const health = await fetch(`${world.hostUrl}/health`);
		expect(health.status).toBe(200);
		expect(await health.json()).toMatchObject({ status: "ok", bots: 1, free: 0, limited_by: ["slots"], refusing: "1 of 1 slots taken" });
		// The bot's own CPU, measured in the real /proc: its Chromium tree over two readings 2 s apart.
		const metrics = await eventually("the bot's CPU measured", async () => {
			const figures = (await (await fetch(`${world.hostUrl}/metrics`)).json()) as Record<string, number | boolean>;
			return figures.cpu_per_bot_measured ? figures : undefined;
		});
		expect(metrics.bots_cpu_pct).toBeGreaterThan(0);
		// One bot: it costs what it uses (at least the 2% floor).
		expect(metrics.cpu_per_bot_pct).toBe(Math.max(2, metrics.bots_cpu_pct as number));
		world.room.command(first.meetingId, { action: "leave" });
		await first.session.finished;
		await new Promise((resolve) => setImmediate(resolve));
		expect(world.host.capacity()).toMatchObject({ running: 0, launching: 0, free: 1, refusing: null, refusing_since: null });
		// One line when the slot was taken, one when it was free again; none for the polls between.
		const refusals = world.logs.filter((line) => line.startsWith("bot host: taking"));
		expect(refusals).toHaveLength(2);
		expect(refusals[0]).toBe("bot host: taking no work: 1 of 1 slots taken");
		expect(refusals[1]).toMatch(/^bot host: taking work again \(1 free\) after refusing for \d+ s$/);
	});

	it("drains: /health answers 503 draining, and a bot still in its meeting when the grace runs out leaves naming host_drained", async () => {
		const bot = await spawnBot(world, "teams", { direct_join: true, participants: [{ name: "Pat" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		const drained = world.host.drain(2_000);
		const health = await fetch(`${world.hostUrl}/health`);
		expect(health.status).toBe(503);
		expect(await health.json()).toEqual({
			status: "draining",
			problems: [],
			bots: 1,
			free: 0,
			limited_by: ["draining", "slots"],
			refusing: "draining: the host is stopping; 1 of 1 slots taken",
			refusing_since: expect.any(String),
		});
		expect(world.host.capacity()).toMatchObject({ draining: true, free: 0 });
		await drained;
		const last = finalStatus(world.room.received(bot.meetingId));
		expect(last).toMatchObject({
			status: "failed",
			failure_cause: "host_drained",
			failure_stage: "active",
			reason: "the bot host shut down: its drain grace of 2 s ran out",
		});
		expect(last?.completion_reason).toBeUndefined();
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: true });
	});
});
