import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { call, json, userWithKey } from "../support";
import { received, script } from "../webhooks/receiver";
import { eventually, openSocket, SimulatedBot, spawnRequestFor } from "./bot-sim";

interface Meeting {
	id: number;
	status: string;
	completion_reason: string | null;
	failure_stage: string | null;
	start_time: string | null;
	end_time: string | null;
	data: Record<string, unknown>;
}

let codeCounter = 0;
/** A fresh, valid Meet code per test so tests never share a link. */
function meetCode(): string {
	codeCounter += 1;
	const letters = (n: number, seed: number) =>
		Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((seed * 7 + i * 3 + Date.now()) % 26))).join("");
	return `${letters(3, codeCounter)}-${letters(4, codeCounter + 11)}-${letters(3, codeCounter + 23)}`;
}

async function sendBot(headers: Record<string, string>, body: Record<string, unknown>) {
	return call("POST", "/bots", { headers, json: body });
}

async function meeting(headers: Record<string, string>, id: number): Promise<Meeting> {
	return json<Meeting>(await call("GET", `/meetings/${id}`, { headers }));
}

const roomOf = (id: number) => env.MEETING_ROOM.get(env.MEETING_ROOM.idFromName(String(id)));

/** Moves every room timer to "now" and runs the alarm: the watchdog's time has come. */
async function fireTimersNow(id: number) {
	const stub = roomOf(id);
	await runInDurableObject(stub, async (_room: MeetingRoom, state) => {
		const timers = (await state.storage.get<Record<string, number>>("timers")) ?? {};
		for (const name of Object.keys(timers)) timers[name] = 0;
		await state.storage.put("timers", timers);
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
		const spawnCall = (await received("/bot-host/bots")).find((r) => JSON.parse(r.body).meeting_id === created.id);
		expect(spawnCall?.headers.authorization).toBe(`Bearer ${env.BOT_HOST_SECRET}`);

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
			speaker_source: "caption",
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
