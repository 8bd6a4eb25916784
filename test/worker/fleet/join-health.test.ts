/**
 * Join health (docs/bot-fleet.md#join-health): per platform, over the last hour and day, from
 * the meetings in D1, as JSON (`GET /internal/fleet/join-health`) and as Prometheus text
 * (`GET /metrics`), both behind FLEET_METRICS_TOKEN. Meetings are written as the status machine
 * leaves them, at chosen times, so each window's figures are known; one join is played over the
 * real bot channel, so the time to admission is the room's own.
 */
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { joinHealthQueries } from "../../../src/meetings/join-health";
import { JoinHealth } from "../../../src/routes/join-health";
import { meetCode } from "../../shared/meetings";
import { SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { sendBot } from "../meetings/helpers";
import { expectIndexedReads } from "../query-plan";
import { createUser, expectDocumented, mintKey } from "../support";
import { callWith, METRICS_TOKEN, operatorGet } from "./operator";

const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

interface Stored {
	platform?: string;
	status: "active" | "completed" | "failed" | "joining" | "requested" | "scheduled";
	/** When the bot began joining, when it was admitted, when the meeting ended: ms ago. */
	joining?: number;
	admitted?: number;
	ended?: number;
	reason?: string;
	stage?: string;
	data?: Record<string, unknown>;
}

let userId = 0;
let linkCounter = 0;

/** A meeting row as the status machine leaves it. */
async function stored(m: Stored): Promise<void> {
	linkCounter += 1;
	const at = (ms: number | undefined) => (ms === undefined ? null : ago(ms));
	await env.DB.prepare(
		`INSERT INTO meetings (user_id, platform, native_meeting_id, status, joining_at, start_time, end_time, completion_reason, failure_stage, data, created_at, updated_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	)
		.bind(
			userId,
			m.platform ?? "google_meet",
			`jh-${linkCounter}`,
			m.status,
			at(m.joining),
			at(m.admitted),
			at(m.ended),
			m.reason ?? null,
			m.stage ?? null,
			JSON.stringify(m.data ?? {}),
			ago(48 * 60 * MINUTE),
			ago(0),
		)
		.run();
}

async function figures() {
	return expectDocumented(JoinHealth, await operatorGet("/internal/fleet/join-health"));
}

const windowOf = (health: Health, window: "1h" | "24h") => health.windows.find((w) => w.window === window);
const platformIn = (health: Health, window: "1h" | "24h", platform: string) =>
	windowOf(health, window)?.platforms.find((p) => p.platform === platform);

type Health = Awaited<ReturnType<typeof figures>>;

// Storage is shared by every file a vitest worker runs (isolate: false): each test counts from no meetings.
beforeEach(async () => {
	await env.DB.prepare("DELETE FROM meetings").run();
	userId = (await createUser()).id;
});

/** A day of Google Meet joins: what each window must count, and what it must leave out. */
async function aDayOfJoins() {
	// Admitted in the last hour: 10, 20 and 40 s to admission; one evicted later is still a join.
	await stored({ status: "completed", joining: 30 * MINUTE + 10_000, admitted: 30 * MINUTE, ended: 10 * MINUTE, reason: "left_alone" });
	await stored({ status: "active", joining: 20 * MINUTE + 20_000, admitted: 20 * MINUTE });
	await stored({
		status: "failed",
		joining: 10 * MINUTE + 40_000,
		admitted: 10 * MINUTE,
		ended: 5 * MINUTE,
		reason: "evicted",
		stage: "active",
	});
	// Admitted 5 hours ago, 100 s after it began.
	await stored({ status: "completed", joining: 300 * MINUTE + 100_000, admitted: 300 * MINUTE, ended: 200 * MINUTE, reason: "stopped" });
	// Admitted in the window, but from before joining_at was kept: a join, with no time to admission.
	await stored({ status: "active", admitted: 40 * MINUTE });
	// Failed attempts in the last hour, at two steps; one stuck on a screen nobody got it past.
	const failed = (ended: number, reason: string, stage: string, data: Record<string, unknown>) =>
		stored({ status: "failed", joining: ended + 30_000, ended, reason, stage, data });
	await failed(15 * MINUTE, "join_failure", "joining", { join_step: "ask_to_join" });
	await failed(25 * MINUTE, "awaiting_admission_rejected", "awaiting_admission", { join_step: "lobby" });
	await failed(35 * MINUTE, "join_failure", "joining", { failure_cause: "help_timeout", join_step: "prejoin" });
	// Failed 3 hours ago (the day only), and 30 hours ago (neither window).
	await failed(180 * MINUTE, "join_failure", "joining", { join_step: "ask_to_join" });
	await failed(30 * 60 * MINUTE, "join_failure", "joining", { join_step: "open_page" });
	// Not attempts: stopped by the user before admission, and the fleet's failures.
	await stored({ status: "completed", joining: 12 * MINUTE, ended: 11 * MINUTE, reason: "stopped" });
	await stored({
		status: "failed",
		ended: 8 * MINUTE,
		reason: "join_failure",
		stage: "requested",
		data: { failure_cause: "no_bot_capacity" },
	});
	await stored({
		status: "failed",
		joining: 9 * MINUTE,
		ended: 7 * MINUTE,
		reason: "join_failure",
		stage: "joining",
		data: { failure_cause: "bot_host_lost" },
	});
	await stored({
		status: "failed",
		joining: 9 * MINUTE,
		ended: 6 * MINUTE,
		reason: "awaiting_admission_timeout",
		stage: "awaiting_admission",
		data: { failure_cause: "host_drained", join_step: "lobby" },
	});
	// The spawn queue refused the ticket: no bot ever began, no cause named.
	await stored({ status: "failed", ended: 4 * MINUTE, reason: "join_failure", stage: "requested" });
	// No outcome yet: a bot still joining, a plan.
	await stored({ status: "joining", joining: MINUTE });
	await stored({ status: "scheduled" });
}

describe("GET /internal/fleet/join-health", () => {
	it("counts, per window, joins admitted and failed before admission, with the success rate", async () => {
		await aDayOfJoins();
		const health = await figures();
		expect(health.windows.map((w) => w.window)).toEqual(["1h", "24h"]);
		expect(Date.parse(windowOf(health, "24h")?.since ?? "")).toBeCloseTo(Date.parse(health.generated_at) - 86_400_000, -2);
		expect(platformIn(health, "1h", "google_meet")).toMatchObject({ attempts: 7, joined: 4, failed: 3, success_rate: 4 / 7 });
		expect(platformIn(health, "24h", "google_meet")).toMatchObject({ attempts: 9, joined: 5, failed: 4, success_rate: 5 / 9 });
	});

	it("gives the time from the bot's first joining to active, by nearest rank, over the joins that have both", async () => {
		await aDayOfJoins();
		const health = await figures();
		expect(platformIn(health, "1h", "google_meet")?.admission_seconds).toEqual({ measured: 3, p50: 20, p95: 40 });
		expect(platformIn(health, "24h", "google_meet")?.admission_seconds).toEqual({ measured: 4, p50: 20, p95: 100 });
	});

	it("breaks failed attempts down by reason, cause and step, most first", async () => {
		await aDayOfJoins();
		const health = await figures();
		expect(platformIn(health, "1h", "google_meet")?.failures).toEqual([
			{ reason: "awaiting_admission_rejected", cause: null, step: "lobby", count: 1 },
			{ reason: "join_failure", cause: "help_timeout", step: "prejoin", count: 1 },
			{ reason: "join_failure", cause: null, step: "ask_to_join", count: 1 },
		]);
		expect(platformIn(health, "24h", "google_meet")?.failures[0]).toEqual({
			reason: "join_failure",
			cause: null,
			step: "ask_to_join",
			count: 2,
		});
	});

	it("keeps user stops and the fleet's failures out of the attempts, and counts them apart", async () => {
		await aDayOfJoins();
		const meet = platformIn(await figures(), "1h", "google_meet");
		expect(meet?.ended_before_admission).toEqual([{ reason: "stopped", count: 1 }]);
		expect(meet?.fleet_failures).toEqual([
			{ reason: "awaiting_admission_timeout", cause: "host_drained", count: 1 },
			{ reason: "join_failure", cause: "bot_host_lost", count: 1 },
			{ reason: "join_failure", cause: "no_bot_capacity", count: 1 },
			{ reason: "join_failure", cause: null, count: 1 },
		]);
	});

	it("lists every platform, one without joins as no data, and keeps each platform's joins its own", async () => {
		await stored({ platform: "teams", status: "failed", joining: 2 * MINUTE, ended: MINUTE, reason: "join_failure", stage: "joining" });
		await stored({ platform: "zoom", status: "active", joining: 3 * MINUTE + 5_000, admitted: 3 * MINUTE });
		const health = await figures();
		expect(windowOf(health, "1h")?.platforms.map((p) => p.platform)).toEqual(["google_meet", "zoom", "teams"]);
		expect(platformIn(health, "1h", "google_meet")).toEqual({
			platform: "google_meet",
			attempts: 0,
			joined: 0,
			failed: 0,
			success_rate: null,
			admission_seconds: { measured: 0, p50: null, p95: null },
			failures: [],
			fleet_failures: [],
			ended_before_admission: [],
		});
		expect(platformIn(health, "1h", "zoom")).toMatchObject({ attempts: 1, joined: 1, success_rate: 1, admission_seconds: { p50: 5 } });
		// A bot of an earlier release sends no step.
		expect(platformIn(health, "1h", "teams")).toMatchObject({
			attempts: 1,
			success_rate: 0,
			failures: [{ reason: "join_failure", cause: null, step: null, count: 1 }],
		});
	});

	it("counts a value outside its list as other, never as itself", async () => {
		const odd = { join_step: "<img src=x onerror=alert(1)>", failure_cause: "made_up" };
		await stored({ status: "failed", joining: 2 * MINUTE, ended: MINUTE, reason: "no_such_reason", stage: "joining", data: odd });
		expect(platformIn(await figures(), "1h", "google_meet")?.failures).toEqual([
			{ reason: "other", cause: "other", step: "other", count: 1 },
		]);
	});

	it("times a join played over the bot channel from its first joining to active", async () => {
		const key = await mintKey(userId);
		const meeting = await sendBot({ "X-API-Key": key }, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
		await bot.status("joining");
		await bot.status("needs_help", { help: { kind: "unknown_screen", page_text: "", screenshot: null }, join_step: "prejoin" });
		await bot.status("joining");
		await bot.status("active");
		const row = await env.DB.prepare("SELECT joining_at, start_time FROM meetings WHERE id = ?")
			.bind(meeting.id)
			.first<{ joining_at: string; start_time: string }>();
		const took = (Date.parse(row?.start_time ?? "") - Date.parse(row?.joining_at ?? "")) / 1000;
		expect(took).toBeGreaterThan(0);
		const meet = platformIn(await figures(), "1h", "google_meet");
		expect(meet).toMatchObject({ attempts: 1, joined: 1, admission_seconds: { measured: 1 } });
		// The first joining counts, not the one after the help request.
		expect(meet?.admission_seconds.p50).toBeCloseTo(took, 2);
		bot.channel.close();
	});

	it("reads the meetings through the join outcome index, never scanning the table", async () => {
		await expectIndexedReads(joinHealthQueries, ["meetings"]);
	});
});

describe("the operator's token", () => {
	it.each(["/internal/fleet/join-health", "/metrics"])("%s answers 401 without it, with a wrong one or a user's key", async (path) => {
		const configured = { FLEET_METRICS_TOKEN: METRICS_TOKEN };
		const key = await mintKey(userId);
		const refused: Record<string, string>[] = [
			{},
			{ Authorization: `Bearer ${METRICS_TOKEN}x` },
			{ Authorization: `Bearer ${key}` },
			{ "X-API-Key": key },
		];
		for (const headers of refused) {
			const res = await callWith(configured, "GET", path, { headers });
			expect(res.status).toBe(401);
			const text = await res.text();
			expect(JSON.parse(text)).toEqual({ detail: "Invalid or missing FLEET_METRICS_TOKEN" });
			expect(text).not.toContain(METRICS_TOKEN);
		}
	});

	it.each(["/internal/fleet/join-health", "/metrics"])("%s answers 503 naming FLEET_METRICS_TOKEN when it is not set", async (path) => {
		const res = await callWith({ FLEET_METRICS_TOKEN: undefined }, "GET", path, { headers: { Authorization: "Bearer anything" } });
		expect(res.status).toBe(503);
		expect(await res.json()).toEqual({ detail: "FLEET_METRICS_TOKEN is not configured" });
	});
});

/** One sample line of the text format: a name, a label set of escaped values, a number. */
const SAMPLE = /^(meetbot_[a-z_]+)\{((?:[a-z_]+="(?:[^"\\\n]|\\[\\"n])*",?)*)\} (-?[0-9.e+-]+)$/;

function samples(text: string) {
	return text
		.split("\n")
		.filter((line) => line && !line.startsWith("#"))
		.map((line) => {
			const match = SAMPLE.exec(line);
			if (!match) throw new Error(`not a sample line: ${line}`);
			const labels = Object.fromEntries(
				[...(match[2] ?? "").matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [
					name,
					(value ?? "").replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c)),
				]),
			);
			return { name: match[1], labels, value: Number(match[3]) };
		});
}

describe("GET /metrics", () => {
	it("answers the figures in the text exposition format 0.0.4, one HELP and TYPE per family", async () => {
		await aDayOfJoins();
		const res = await operatorGet("/metrics");
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
		const text = await res.text();
		expect(text.endsWith("\n")).toBe(true);
		const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => `${name} ${type}`);
		expect(types).toEqual([
			"meetbot_join_attempts gauge",
			"meetbot_join_admitted gauge",
			"meetbot_join_failed gauge",
			"meetbot_join_success_ratio gauge",
			"meetbot_join_admission_seconds gauge",
			"meetbot_join_admission_measured gauge",
			"meetbot_join_failures gauge",
			"meetbot_join_fleet_failures gauge",
			"meetbot_join_ended_before_admission gauge",
		]);
		expect([...text.matchAll(/^# HELP (\S+) /gm)].map(([, name]) => name)).toEqual(types.map((t) => t.split(" ")[0]));
		const all = samples(text);
		const value = (name: string, labels: Record<string, string>) =>
			all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).map((s) => s.value);
		const meetHour = { platform: "google_meet", window: "1h" };
		expect(value("meetbot_join_attempts", meetHour)).toEqual([7]);
		expect(value("meetbot_join_attempts", { platform: "zoom", window: "24h" })).toEqual([0]);
		expect(value("meetbot_join_success_ratio", meetHour)[0]).toBeCloseTo(4 / 7, 5);
		// No attempts, no ratio: absent, not zero.
		expect(value("meetbot_join_success_ratio", { platform: "zoom" })).toEqual([]);
		expect(value("meetbot_join_admission_seconds", { ...meetHour, quantile: "0.5" })).toEqual([20]);
		expect(value("meetbot_join_admission_seconds", { platform: "google_meet", window: "24h", quantile: "0.95" })).toEqual([100]);
		expect(value("meetbot_join_failures", { ...meetHour, reason: "join_failure", cause: "help_timeout", step: "prejoin" })).toEqual([1]);
		expect(
			value("meetbot_join_failures", {
				platform: "google_meet",
				window: "24h",
				reason: "join_failure",
				cause: "none",
				step: "ask_to_join",
			}),
		).toEqual([2]);
		expect(value("meetbot_join_fleet_failures", { ...meetHour, cause: "no_bot_capacity" })).toEqual([1]);
		expect(value("meetbot_join_ended_before_admission", { ...meetHour, reason: "stopped" })).toEqual([1]);
	});

	it("escapes label values: a backslash, a double quote and a line feed stay inside their label", async () => {
		const platform = 'odd\\"platform\n} 1\nmeetbot_join_attempts{platform="forged"';
		await stored({ platform, status: "failed", joining: 2 * MINUTE, ended: MINUTE, reason: "join_failure", stage: "joining" });
		const text = await (await operatorGet("/metrics")).text();
		expect(text).toContain('platform="odd\\\\\\"platform\\n} 1\\nmeetbot_join_attempts{platform=\\"forged\\"",window="1h"} 1');
		const all = samples(text);
		expect(all.filter((s) => s.labels.platform === "forged")).toEqual([]);
		expect(all.find((s) => s.name === "meetbot_join_attempts" && s.labels.platform === platform && s.labels.window === "1h")?.value).toBe(
			1,
		);
		expect(all.find((s) => s.name === "meetbot_join_failures" && s.labels.platform === platform)?.labels.step).toBe("unreported");
	});
});
