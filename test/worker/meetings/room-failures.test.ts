/**
 * The MeetingRoom under failure: D1 or the account object failing inside the room (injected,
 * see broken-env.ts) must never lose a segment, a watchdog, an auto-join or a webhook event,
 * and a bot the room ended without is refused when it comes back.
 */
import { runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import type { WebhookEnvelope } from "../../../src/webhooks/envelope";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { call, json, roomOf, userWithKey } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook, received } from "../webhooks/receiver";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { Faults, failingAccounts, failingD1, swapEnv } from "./broken-env";
import { createPlan, fireTimersNow, getMeeting, liveMeeting, meetUrl, roomTimers, segment, sendBot } from "./helpers";

const line = (n: number) => segment({ segment_id: `s-${n}`, text: `line ${n}`, start: n, end: n + 0.5 });

describe("the bot channel when a write fails", () => {
	it("keeps a segment whose write failed: the later seq waits, and both land after the resend", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		for (const n of [2, 3, 4]) await bot.send({ type: "segment", segment: line(n) }, n);
		const faults = new Faults(1);
		const restore = await swapEnv(roomOf(meeting.id), (e) => ({ DB: failingD1(e.DB, /INSERT INTO transcript_segments/, faults) }));
		bot.channel.send({ type: "segment", segment: line(5), seq: 5 });
		bot.channel.send({ type: "segment", segment: line(6), seq: 6 });
		await eventually("the room to close the channel", () => bot.channel.closed);
		expect(faults.count).toBe(1);
		expect(bot.channel.messages.filter((m) => m.type === "ack").map((m) => m.seq)).toEqual([0, 1, 2, 3, 4]);
		await restore();

		// The bot resends everything after its last ack (4).
		const again = await SimulatedBot.connect(bot.spawn, 4);
		expect(again.channel.messages.find((m) => m.type === "ack")).toEqual({ type: "ack", seq: 4 });
		await again.send({ type: "segment", segment: line(5) }, 5);
		await again.send({ type: "segment", segment: line(6) }, 6);
		const transcript = await json<{ segments: { segment_id: string }[] }>(
			await call("GET", `/transcripts/google_meet/${code}`, { headers }),
		);
		expect(transcript.segments.map((s) => s.segment_id)).toEqual(["s-2", "s-3", "s-4", "s-5", "s-6"]);
	});

	it("applies nothing past a gap: a seq ahead of the next one makes the bot resend", async () => {
		const { headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		bot.channel.send({ type: "segment", segment: line(3), seq: 3 });
		await eventually("the room to close the channel", () => bot.channel.closed);
		expect(bot.channel.closed?.code).toBe(1011);
		const transcript = await json<{ segments: unknown[] }>(await call("GET", `/transcripts/google_meet/${code}`, { headers }));
		expect(transcript.segments).toEqual([]);
	});
});

describe("a message no resend can fix", () => {
	it("is skipped with an error and acked, so the messages after it still land", async () => {
		const { headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		bot.channel.send({ type: "segment", segment: { ...line(2), text: "x".repeat(10_001) }, seq: 2 });
		await bot.channel.waitFor("ack 2", (m) => m.type === "ack" && m.seq === 2);
		expect(bot.channel.messages).toContainEqual({ type: "error", detail: "unreadable bot channel message" });
		await bot.send({ type: "segment", segment: line(3) }, 3);
		const transcript = await json<{ segments: { segment_id: string }[] }>(
			await call("GET", `/transcripts/google_meet/${code}`, { headers }),
		);
		expect(transcript.segments.map((s) => s.segment_id)).toEqual(["s-3"]);
	});
});

describe("a meeting the room ends without its bot", () => {
	it("refuses a claimed bot that never connected when it comes after the watchdog gave up: it leaves", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const spawn = await spawnRequestFor(m.id);
		await fireTimersNow(m.id);
		expect(await getMeeting(headers, m.id)).toMatchObject({
			status: "failed",
			completion_reason: "join_failure",
			data: { failure_cause: "bot_host_lost" },
		});
		// No call to its host: the bot hears it on its channel (409: leave, do not reconnect).
		const late = await SELF.fetch(spawn.channel.url.replace(/^wss:/, "https:"), {
			headers: { Upgrade: "websocket", Authorization: `Bearer ${spawn.channel.token}` },
		});
		expect(late.status).toBe(409);
		expect(late.webSocket).toBeNull();
	});

	it("closes the channel with the meeting-ended code when a stop is never confirmed", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
		await bot.channel.waitFor("leave", (msg) => msg.type === "command");
		await fireTimersNow(meeting.id);
		expect(await getMeeting(headers, meeting.id)).toMatchObject({ status: "completed", completion_reason: "stopped" });
		await eventually("the channel to close", () => bot.channel.closed);
		expect(bot.channel.closed).toEqual({ code: 4410, reason: "meeting ended" });
	});
});

describe("room timers when their action fails", () => {
	it("keeps the watchdog through a failed write and ends the meeting on the retry", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		await spawnRequestFor(m.id);
		const faults = new Faults(1);
		const restore = await swapEnv(roomOf(m.id), (e) => ({ DB: failingD1(e.DB, /^update "meetings"/i, faults) }));
		await fireTimersNow(m.id);
		expect(faults.count).toBe(1);
		expect((await getMeeting(headers, m.id)).status).toBe("requested");
		const { timers } = await roomTimers(m.id);
		expect(timers.watchdog).toBeGreaterThan(Date.now());
		await restore();
		await fireTimersNow(m.id);
		expect(await getMeeting(headers, m.id)).toMatchObject({ status: "failed", completion_reason: "join_failure" });
		expect((await call("GET", "/bots/status", { headers })).status).toBe(200);
		expect((await json<{ running_bots: unknown[] }>(await call("GET", "/bots/status", { headers }))).running_bots).toEqual([
			expect.objectContaining({
				meeting_id: m.id,
				status: "failed",
				completion_reason: "join_failure",
				data: expect.objectContaining({ failure_cause: "bot_host_lost" }),
			}),
		]);
	});

	it("keeps auto-join through a failed read and joins on the retry", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const plan = await createPlan(headers, { meeting_url: meetUrl(code), scheduled_at: new Date(Date.now() + 2 * 3600_000).toISOString() });
		const faults = new Faults(1);
		const restore = await swapEnv(roomOf(plan.id), (e) => ({ DB: failingD1(e.DB, /from "meetings"/i, faults) }));
		await fireTimersNow(plan.id);
		expect(faults.count).toBe(1);
		expect((await getMeeting(headers, plan.id)).status).toBe("scheduled");
		expect((await roomTimers(plan.id)).timers.auto_join).toBeGreaterThan(Date.now());
		await restore();
		await fireTimersNow(plan.id);
		expect((await getMeeting(headers, plan.id)).status).toBe("requested");
	});
});

describe("webhook events when the account object cannot take them", () => {
	it("keeps a step's events in the room and delivers them once the outbox is reachable", async () => {
		const hook = newHook();
		const { headers } = await userWithWebhook(hook.url, { events: { "meeting.started": true, "meeting.status_change": true } });
		const m = await sendBot(headers, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(m.id));
		await eventually("the requested event", async () => ((await received(hook.path)).length >= 1 ? true : undefined));
		const faults = new Faults(1_000);
		const restore = await swapEnv(roomOf(m.id), (e) => ({ ACCOUNT: failingAccounts(e.ACCOUNT, "enqueueWebhook", faults) }));
		await bot.status("active");
		await eventually("a failed hand-over", () => (faults.count > 0 ? true : undefined));
		const pending = await runInDurableObject(
			roomOf(m.id),
			async (_r: MeetingRoom, s) => (await s.storage.list({ prefix: ROOM_KEYS.noticePrefix })).size,
		);
		expect(pending).toBe(2);
		expect((await roomTimers(m.id)).timers.notify).toBeGreaterThan(0);
		await restore();
		await fireTimersNow(m.id);
		const delivered = await eventually("started and status_change for active", async () => {
			const sent = (await received(hook.path)).map((r) => JSON.parse(r.body) as WebhookEnvelope);
			return sent.length >= 3 ? sent : undefined;
		});
		expect(delivered.map((e) => [e.event_type, e.data.status_change?.to])).toEqual([
			["meeting.status_change", "requested"],
			["meeting.started", "active"],
			["meeting.status_change", "active"],
		]);
		expect((await roomTimers(m.id)).timers.notify).toBeUndefined();
	});
});

describe("commands for a bot that is away", () => {
	it("keeps up to 50 and refuses more with 409 and a detail", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		bot.channel.close();
		await eventually("the room to see the bot gone", async () => ((await roomTimers(meeting.id)).timers.watchdog ? true : undefined));
		const chat = (text: string) => call("POST", `/bots/google_meet/${code}/chat`, { headers, json: { text } });
		expect((await chat("message 0")).status).toBe(202);
		// The rest straight to the room: 50 requests at once would meet the gateway's request bucket first.
		for (let i = 1; i < 50; i++) expect(await roomOf(meeting.id).command({ action: "chat_send", text: `message ${i}` })).toBe("relayed");
		const refused = await chat("one too many");
		expect(refused.status).toBe(409);
		expect(await refused.json()).toEqual({
			detail: "The bot is not connected and already has 50 commands waiting; try again once it reconnects",
		});
		const back = await SimulatedBot.connect(bot.spawn, 1);
		await eventually("50 queued commands", () => (back.commands().length >= 50 ? true : undefined));
		expect(back.commands()).toHaveLength(50);
		expect((await chat("after the reconnect")).status).toBe(202);
	});

	it("keeps at most 24 MB of them: audio past that gets 409, no stored value nears 2 MB, and the bot gets each intact, in order", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		bot.channel.close();
		await eventually("the room to see the bot gone", async () => ((await roomTimers(meeting.id)).timers.watchdog ? true : undefined));
		// About 7.9 MB of base64 each (a minute of 48 kHz WAV is 7.7 MB), two halves that differ, so a
		// command put back together wrongly shows.
		const audio = (i: number) => String.fromCharCode(65 + i).repeat(3_950_000) + "QkJD".repeat(987_500);
		const speak = (i: number) => call("POST", `/bots/google_meet/${code}/speak`, { headers, json: { audio_base64: audio(i) } });
		for (let i = 0; i < 3; i++) expect((await speak(i)).status, `audio ${i}`).toBe(202);
		const refused = await speak(3);
		expect(refused.status).toBe(409);
		expect(await refused.json()).toEqual({
			detail: "The bot is not connected and its waiting commands would pass 24 MB; try again once it reconnects",
		});
		// A small command still fits beside them.
		expect((await call("POST", `/bots/google_meet/${code}/chat`, { headers, json: { text: "still room" } })).status).toBe(202);

		const largest = await runInDurableObject(roomOf(meeting.id), async (_room: MeetingRoom, state) => {
			const values = [...(await state.storage.list()).values()];
			return Math.max(...values.map((v) => JSON.stringify(v ?? null).length));
		});
		expect(largest).toBeLessThan(1024 * 1024 + 16);

		const back = await SimulatedBot.connect(bot.spawn, 1);
		await eventually("4 queued commands", () => (back.commands().length >= 4 ? true : undefined));
		const acts = back.commands().map((c) => (c.type === "command" ? c.act : null));
		// Compared as booleans: a diff of 24 MB of base64 would help nobody.
		const intact = acts.slice(0, 3).map((a, i) => a !== null && "audioBase64" in a && a.audioBase64 === audio(i));
		expect(intact).toEqual(Array(3).fill(true));
		expect(acts[3]).toEqual({ action: "chat_send", text: "still room" });
		const left = await runInDurableObject(roomOf(meeting.id), async (_room: MeetingRoom, state) => [
			...(await state.storage.list({ prefix: ROOM_KEYS.commandQueue })).keys(),
		]);
		expect(left).toEqual([]);
	});
});
