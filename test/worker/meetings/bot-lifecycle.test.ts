import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import { type Meeting, meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { call, joinWorkspace, json, roomOf, userWithKey } from "../support";
import { script } from "../webhooks/receiver";
import { openSocket, ownMeetingIds, QUEUE_MESSAGES, SimulatedBot, spawnRequestFor, ticketMatch, ticketsFor } from "./bot-sim";

async function sendBot(headers: Record<string, string>, body: Record<string, unknown>) {
	return call("POST", "/bots", { headers, json: body });
}

async function meeting(headers: Record<string, string>, id: number): Promise<Meeting> {
	return json<Meeting>(await call("GET", `/meetings/${id}`, { headers }));
}

/** Moves every room timer to "now" and runs the alarm: the watchdog's time has come. */
async function fireTimersNow(id: number) {
	const stub = roomOf(id);
	await runInDurableObject(stub, async (_room: MeetingRoom, state) => {
		const timers = (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {};
		for (const name of Object.keys(timers)) timers[name] = 0;
		await state.storage.put(ROOM_KEYS.timers, timers);
	});
	await runDurableObjectAlarm(stub);
}

describe("a meeting from request to transcript", () => {
	it("spawns, goes live, streams segments to /ws subscribers, stops and keeps the transcript", async () => {
		const { key, headers, user } = await userWithKey();
		const code = meetCode();
		const res = await sendBot(headers, { platform: "google_meet", native_meeting_id: code, bot_name: "Scribe", language: "en" });
		expect(res.status).toBe(201);
		const created = await json<Meeting>(res);
		expect(created.status).toBe("requested");

		const spawn = await spawnRequestFor(created.id);
		expect(spawn).toMatchObject({
			meeting_id: created.id,
			platform: "google_meet",
			native_meeting_id: code,
			meeting_url: `https://meet.google.com/${code}`,
			bot_name: "Scribe",
			language: "en",
			task: "transcribe",
		});
		expect(spawn.attempt).toBe(1);
		const ticket = await eventually("the ticket", async () => (await ticketsFor(created.id))[0]);
		expect(ticket).toMatchObject({ meeting_id: created.id, attempt: 1 });

		const live = await openSocket("/ws", { "X-API-Key": key });
		live.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
		expect(await live.waitFor("subscribed", (m) => m.type === "subscribed")).toEqual({
			type: "subscribed",
			meetings: [{ platform: "google_meet", native_id: code }],
		});

		const bot = await SimulatedBot.connect(spawn);
		for (const status of ["joining", "awaiting_admission", "active"]) await bot.status(status);
		const seen = () => live.messages.filter((m) => m.type === "meeting.status").map((m) => (m.payload as { status: string }).status);
		await eventually("three status messages", () => (seen().length >= 3 ? true : undefined));
		expect(seen()).toEqual(["joining", "awaiting_admission", "active"]);
		const statusMessage = live.messages.find((m) => m.type === "meeting.status");
		expect(statusMessage).toMatchObject({ meeting: { id: created.id, platform: "google_meet", native_id: code }, user_id: user.id });

		const running = await json<{ running_bots: { meeting_id: number; status: string }[] }>(await call("GET", "/bots/status", { headers }));
		expect(running.running_bots).toEqual([expect.objectContaining({ meeting_id: created.id, status: "active", native_meeting_id: code })]);

		const draft = {
			segment_id: "s-1",
			speaker: "Alice",
			speaker_source: "caption" as const,
			text: "Hello every",
			start: 1,
			end: 1.8,
			language: "en",
			completed: false,
		};
		await bot.send({ type: "segment", segment: draft });
		await bot.send({ type: "segment", segment: { ...draft, text: "Hello everyone.", end: 2.1, completed: true } });
		await bot.send({
			type: "segment",
			segment: { ...draft, segment_id: "s-0", speaker: "Bob", text: "Hi.", start: 0.2, end: 0.6, completed: true },
		});
		const bundles = await eventually("three bundles", () => {
			const b = live.messages.filter((m) => m.type === "transcript");
			return b.length >= 3 ? b : undefined;
		});
		expect(bundles[0]).toMatchObject({
			speaker: "Alice",
			confirmed: [],
			pending: [{ segment_id: "s-1", text: "Hello every", completed: false }],
		});
		expect(bundles[1]).toMatchObject({
			speaker: "Alice",
			confirmed: [{ segment_id: "s-1", text: "Hello everyone.", completed: true, start_time: 1, end_time: 2.1 }],
			pending: [],
		});

		await bot.send({ type: "chat", message: { sender: "Alice", text: "link in chat", timestamp: 1_700_000_000_000, is_from_bot: false } });
		await live.waitFor("chat_message", (m) => m.type === "chat_message" && m.text === "link in chat");
		await live.waitFor("chat.received", (m) => m.type === "chat.received" && m.sender === "Alice");

		const stop = await call("DELETE", `/bots/google_meet/${code}`, { headers });
		expect(stop.status).toBe(204);
		expect((await meeting(headers, created.id)).status).toBe("stopping");
		await bot.channel.waitFor("leave command", (m) => m.type === "command" && (m.act as { action: string }).action === "leave");
		// Whatever the bot says about why it left, the user's stop wins.
		await bot.status("completed", { completion_reason: "left_alone" });
		const ended = await meeting(headers, created.id);
		expect(ended).toMatchObject({ status: "completed", completion_reason: "stopped", failure_stage: null });
		expect(ended.start_time).not.toBeNull();
		expect(ended.end_time).not.toBeNull();
		await live.waitFor("completed status", (m) => m.type === "meeting.status" && (m.payload as { status: string }).status === "completed");

		const transcript = await json<{ status: string; segments: Record<string, unknown>[] }>(
			await call("GET", `/transcripts/google_meet/${code}`, { headers }),
		);
		expect(transcript.status).toBe("completed");
		expect(transcript.segments.map((s) => [s.segment_id, s.speaker, s.text])).toEqual([
			["s-0", "Bob", "Hi."],
			["s-1", "Alice", "Hello everyone."],
		]);
		expect(transcript.segments[1]).toMatchObject({
			start: 1,
			end: 2.1,
			start_time: 1,
			end_time: 2.1,
			completed: true,
			speaker_source: "caption",
			language: "en",
		});

		// The slot came back and the link is free again: a new bot is a new meeting.
		const again = await sendBot(headers, { platform: "google_meet", native_meeting_id: code });
		expect(again.status).toBe(201);
		expect((await json<Meeting>(again)).id).not.toBe(created.id);
		live.close();
	});
});

describe("the bot channel", () => {
	it("refuses a token minted for another meeting, and a forged one", async () => {
		const { headers } = await userWithKey();
		const a = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: meetCode() }));
		const b = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: meetCode() }));
		const spawnA = await spawnRequestFor(a.id);
		for (const token of [spawnA.channel.token, `${b.id}.9999999999.${"0".repeat(64)}`, "garbage"]) {
			const res = await call("GET", `/internal/bot-channel/${b.id}`, {
				headers: { Upgrade: "websocket", Authorization: `Bearer ${token}` },
			});
			expect(res.status).toBe(401);
			expect(res.webSocket).toBeNull();
		}
	});

	it("resumes after a reconnect without losing or duplicating anything", async () => {
		const { headers } = await userWithKey();
		const m = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: meetCode() }));
		const spawn = await spawnRequestFor(m.id);
		const first = await SimulatedBot.connect(spawn);
		await first.status("active");
		const chat = (text: string) => ({ type: "chat" as const, message: { sender: "Ann", text, timestamp: Date.now(), is_from_bot: false } });
		await first.send(chat("one"));
		// The connection drops after message 3 was sent but before its ack arrived.
		first.channel.send({ ...chat("two"), seq: 3 });
		await first.channel.waitFor("ack 3", (msg) => msg.type === "ack" && msg.seq === 3);
		first.channel.close();

		const second = await SimulatedBot.connect(spawn, 2);
		const hello = second.channel.messages.find((msg) => msg.type === "ack");
		expect(hello).toEqual({ type: "ack", seq: 3 });
		await second.send(chat("two"), 3);
		await second.send(chat("three"), 4);
		const rows = await env.DB.prepare("SELECT text FROM chat_messages WHERE meeting_id = ? ORDER BY id").bind(m.id).all<{ text: string }>();
		expect(rows.results.map((r) => r.text)).toEqual(["one", "two", "three"]);
	});

	it("queues commands sent while the bot is away and hands them over on hello", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const m = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: code }));
		const spawn = await spawnRequestFor(m.id);
		const bot = await SimulatedBot.connect(spawn);
		await bot.status("active");
		bot.channel.close();
		await eventually("the room to see the bot gone", async () =>
			runInDurableObject(roomOf(m.id), async (_r: MeetingRoom, s) =>
				(await s.storage.get<Record<string, number>>(ROOM_KEYS.timers))?.watchdog ? true : undefined,
			),
		);
		const res = await call("PUT", `/bots/google_meet/${code}/config`, { headers, json: { language: "de", task: "translate" } });
		expect(res.status).toBe(202);
		expect(await res.json()).toEqual({ message: "Config update sent", meeting_id: m.id });
		const back = await SimulatedBot.connect(spawn, 1);
		const command = await back.channel.waitFor("reconfigure", (msg) => msg.type === "command");
		expect(command.act).toEqual({ action: "reconfigure", language: "de", task: "translate" });
	});
});

describe("how meetings fail", () => {
	it("fails with join_failure when the spawn queue refuses the ticket", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		// Matched on the meeting id, moved to this test's own range: other files publish through the same receiver path.
		await script(QUEUE_MESSAGES, [{ status: 500, body: "queue down", match: ticketMatch(await ownMeetingIds()) }]);
		const m = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: code }));
		const ended = await eventually("failed", async () => {
			const now = await meeting(headers, m.id);
			return now.status === "failed" ? now : undefined;
		});
		expect(ended).toMatchObject({ completion_reason: "join_failure", failure_stage: "requested" });
		// The failed bot stays in /bots/status for a while, with why (POST /bots answered 201).
		expect((await json<{ running_bots: unknown[] }>(await call("GET", "/bots/status", { headers }))).running_bots).toEqual([
			expect.objectContaining({ meeting_id: m.id, status: "failed", completion_reason: "join_failure" }),
		]);
	});

	it("records a host's denial as awaiting_admission_rejected (the reference's word for the spec's rejected) at the lobby stage", async () => {
		const { headers } = await userWithKey();
		const m = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: meetCode() }));
		const bot = await SimulatedBot.connect(await spawnRequestFor(m.id));
		await bot.status("awaiting_admission");
		await bot.status("failed", { completion_reason: "awaiting_admission_rejected", reason: "host denied entry" });
		expect(await meeting(headers, m.id)).toMatchObject({
			status: "failed",
			completion_reason: "awaiting_admission_rejected",
			failure_stage: "awaiting_admission",
		});
		await eventually("channel closed by the room", () => (bot.channel.closed ? true : undefined));
	});

	it("ignores an illegal move and keeps the meeting where it was", async () => {
		const { headers } = await userWithKey();
		const m = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: meetCode() }));
		const bot = await SimulatedBot.connect(await spawnRequestFor(m.id));
		await bot.status("active");
		await bot.status("joining");
		expect((await meeting(headers, m.id)).status).toBe("active");
	});

	it("stops a bot that never connected at once, as completed and stopped", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const m = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: code }));
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
		expect(await meeting(headers, m.id)).toMatchObject({ status: "completed", completion_reason: "stopped" });
		const again = await call("DELETE", `/bots/google_meet/${code}`, { headers });
		expect(again.status).toBe(404);
		expect(await again.json()).toEqual({ detail: `No active meeting found for google_meet/${code}` });
	});

	it("records the stop when a stopping bot never confirms", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const m = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: code }));
		const bot = await SimulatedBot.connect(await spawnRequestFor(m.id));
		await bot.status("active");
		await call("DELETE", `/bots/google_meet/${code}`, { headers });
		await fireTimersNow(m.id);
		expect(await meeting(headers, m.id)).toMatchObject({ status: "completed", completion_reason: "stopped" });
	});
});

describe("POST /bots rules", () => {
	it("starts exactly as many bots as the cap allows when ten arrive at once", async () => {
		const { headers } = await userWithKey("bot", { max_concurrent_bots: 2 });
		const results = await Promise.all(
			Array.from({ length: 10 }, () => sendBot(headers, { platform: "google_meet", native_meeting_id: meetCode() })),
		);
		const statuses = results.map((r) => r.status).sort();
		expect(statuses.filter((s) => s === 201)).toHaveLength(2);
		expect(statuses.filter((s) => s === 429)).toHaveLength(8);
		const refused = results.find((r) => r.status === 429);
		expect(refused?.headers.get("Retry-After")).toMatch(/^\d+$/);
		expect((await json<{ detail: string }>(refused as Response)).detail).toMatch(/limit reached \(2\/2\)/);
	});

	it("refuses every spawn for a cap of 0, as depleted", async () => {
		const { headers } = await userWithKey("bot", { max_concurrent_bots: 0 });
		const res = await sendBot(headers, { platform: "google_meet", native_meeting_id: meetCode() });
		expect(res.status).toBe(429);
		expect((await json<{ detail: string }>(res)).detail).toMatch(/limit is 0/);
	});

	it("answers 409 for a second bot on an active link, and 422 for an unknown platform or bad id", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		expect((await sendBot(headers, { platform: "google_meet", native_meeting_id: code })).status).toBe(201);
		const dup = await sendBot(headers, { platform: "google_meet", native_meeting_id: code });
		expect(dup.status).toBe(409);
		expect((await sendBot(headers, { platform: "discord", native_meeting_id: "abc" })).status).toBe(422);
		expect((await sendBot(headers, { platform: "google_meet", native_meeting_id: "not a code" })).status).toBe(422);
		expect((await sendBot(headers, { platform: "zoom", meeting_url: "https://meet.google.com/abc-defg-hij" })).status).toBe(422);
	});

	it("claims a planned record on the same link in place, keeping title, schedule and workspace", async () => {
		const { headers, user } = await userWithKey();
		const code = meetCode();
		await joinWorkspace("ws-1", user.id);
		const when = new Date(Date.now() + 3 * 3600_000).toISOString();
		const plan = await json<Meeting>(
			await call("POST", "/meetings", {
				headers,
				json: { title: "Weekly sync", scheduled_at: when, meeting_url: `https://meet.google.com/${code}?authuser=0`, workspace_id: "ws-1" },
			}),
		);
		const res = await sendBot(headers, { platform: "google_meet", native_meeting_id: code });
		expect(res.status).toBe(201);
		const claimed = await json<Meeting & { workspace_id: string }>(res);
		expect(claimed.id).toBe(plan.id);
		expect(claimed).toMatchObject({ status: "requested", workspace_id: "ws-1", data: { title: "Weekly sync", scheduled_at: when } });
	});

	it("takes a Zoom link with its passcode and hands the bot a joinable URL", async () => {
		const { headers } = await userWithKey();
		const res = await sendBot(headers, { platform: "zoom", meeting_url: "https://us05web.zoom.us/j/85512345678?pwd=Secr3tPass" });
		expect(res.status).toBe(201);
		const spawn = await spawnRequestFor((await json<Meeting>(res)).id);
		expect(spawn).toMatchObject({ native_meeting_id: "85512345678", passcode: "Secr3tPass" });
		expect(spawn.meeting_url).toContain("85512345678");
	});
});

describe("auto-join when the spawn queue refuses the ticket", () => {
	it("keeps the plan scheduled with data.auto_join_error and a retry, gives the slot back, and joins on the retry", async () => {
		const { headers } = await userWithKey("bot,tx", { max_concurrent_bots: 1 });
		const code = meetCode();
		await script(QUEUE_MESSAGES, [{ status: 500, body: "queue down", match: ticketMatch(await ownMeetingIds()) }]);
		const plan = await json<Meeting>(
			await call("POST", "/meetings", {
				headers,
				json: { meeting_url: `https://meet.google.com/${code}`, scheduled_at: new Date(Date.now() + 30_000).toISOString() },
			}),
		);
		const refused = await eventually("auto_join_error", async () => {
			const now = await meeting(headers, plan.id);
			return typeof now.data.auto_join_error === "string" ? now : undefined;
		});
		expect(refused.status).toBe("scheduled");
		expect(refused.data.auto_join_error).toMatch(/spawn queue answered 500/);
		expect(refused.completion_reason).toBeNull();
		const room = await runInDurableObject(roomOf(plan.id), async (_r: MeetingRoom, s) => ({
			timers: (await s.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {},
			state: await s.storage.get(ROOM_KEYS.state),
		}));
		expect(Object.keys(room.timers)).toEqual(["auto_join"]);
		expect(room.timers.auto_join).toBeGreaterThan(Date.now());
		expect(room.state).toBeUndefined();
		expect((await json<{ running_bots: unknown[] }>(await call("GET", "/bots/status", { headers }))).running_bots).toEqual([]);

		// The retry finds the slot free (cap 1, same link) and the queue back.
		await fireTimersNow(plan.id);
		const joined = await meeting(headers, plan.id);
		expect(joined.status).toBe("requested");
		expect(joined.data).not.toHaveProperty("auto_join_error");
		// The refused publish and the retry's.
		expect(await ticketsFor(plan.id)).toHaveLength(2);
	});
});
