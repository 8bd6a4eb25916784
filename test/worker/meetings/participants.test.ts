import { describe, expect, it } from "vitest";
import { call, json, userWithKey } from "../support";
import { liveMeeting, segment, workspaceMeeting } from "./helpers";

interface Stay {
	joined_at: string | null;
	left_at: string | null;
}
interface Participant {
	participant_id: string;
	name: string;
	joined_at: string | null;
	left_at: string | null;
	intervals: Stay[];
	talk_time_s: number | null;
}
interface Participants {
	meeting_id: number;
	participants: Participant[];
	speakers: { speaker: string; talk_time_s: number; participant_id: string | null }[];
}

const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s)).toISOString();
type Bot = Awaited<ReturnType<typeof liveMeeting>>["bot"];
const join = (bot: Bot, id: string, name: string, s: number) =>
	bot.send({ type: "participant", event: "join", participant: { id, name }, timestamp: at(s) });
const leave = (bot: Bot, id: string, name: string, s: number) =>
	bot.send({ type: "participant", event: "leave", participant: { id, name }, timestamp: at(s) });

async function participantsOf(headers: Record<string, string>, meetingId: number): Promise<Participants> {
	const res = await call("GET", `/meetings/${meetingId}/participants`, { headers });
	expect(res.status).toBe(200);
	return json<Participants>(res);
}

describe("GET /meetings/{meeting_id}/participants", () => {
	it("lists who joined and left, as the bot reported them, and a rejoin clears the leave", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await liveMeeting(headers);
		await join(bot, "p-1", "Alice", 1);
		await join(bot, "p-2", "Bob", 2);
		await leave(bot, "p-2", "Bob", 30);
		await leave(bot, "p-1", "Alice", 40);
		await join(bot, "p-1", "Alice", 50);

		const body = await participantsOf(headers, meeting.id);
		expect(body.meeting_id).toBe(meeting.id);
		// Issue 35 adds every stay and the talk time to the first-join/last-leave fields, which keep their meaning.
		expect(body.participants).toEqual([
			{
				participant_id: "p-1",
				name: "Alice",
				joined_at: at(1),
				left_at: null,
				intervals: [
					{ joined_at: at(1), left_at: at(40) },
					{ joined_at: at(50), left_at: null },
				],
				talk_time_s: 0,
			},
			{
				participant_id: "p-2",
				name: "Bob",
				joined_at: at(2),
				left_at: at(30),
				intervals: [{ joined_at: at(2), left_at: at(30) }],
				talk_time_s: 0,
			},
		]);
		expect(body.speakers).toEqual([]);
	});

	it("keeps every stay of someone who leaves and rejoins, once each when the bot reports a change again", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await liveMeeting(headers);
		// Already in the meeting when the bot came: the bot sees only the leave.
		await leave(bot, "p-9", "Early Eve", 5);
		await join(bot, "p-1", "Alice", 10);
		await join(bot, "p-1", "Alice", 10);
		await join(bot, "p-1", "Alice", 12);
		await leave(bot, "p-1", "Alice", 20);
		await leave(bot, "p-1", "Alice", 20);
		await join(bot, "p-1", "Alice", 30);
		await leave(bot, "p-1", "Alice", 45);
		await join(bot, "p-1", "Alice B.", 60);
		await join(bot, "p-9", "Early Eve", 70);

		const { participants } = await participantsOf(headers, meeting.id);
		expect(participants.map((p) => [p.participant_id, p.name, p.joined_at, p.left_at, p.intervals])).toEqual([
			[
				"p-9",
				"Early Eve",
				at(70),
				null,
				[
					{ joined_at: null, left_at: at(5) },
					{ joined_at: at(70), left_at: null },
				],
			],
			[
				"p-1",
				"Alice B.",
				at(10),
				null,
				[
					{ joined_at: at(10), left_at: at(20) },
					{ joined_at: at(30), left_at: at(45) },
					{ joined_at: at(60), left_at: null },
				],
			],
		]);
	});

	it("sums each speaker's confirmed segments and matches them to participants by name", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await liveMeeting(headers);
		await join(bot, "spaces/x/devices/11", "Alice Liddell", 1);
		await join(bot, "spaces/x/devices/22", "Bob", 2);
		await join(bot, "spaces/x/devices/33", "Dan", 3);
		const said = [
			{ segment_id: "a1", speaker: "Alice Liddell", start: 0, end: 10 },
			// The captions may spell the name with other spacing or case.
			{ segment_id: "a2", speaker: "alice  liddell ", start: 20, end: 25.5 },
			{ segment_id: "b1", speaker: "Bob", start: 12, end: 18 },
			// A draft is a guess its confirmation replaces: not counted.
			{ segment_id: "b2", speaker: "Bob", start: 30, end: 90, completed: false },
			{ segment_id: "c1", speaker: "Carol", start: 40, end: 43 },
			{ segment_id: "u1", speaker: "", start: 50, end: 51 },
		];
		for (const s of said) await bot.send({ type: "segment", segment: segment(s) });

		const body = await participantsOf(headers, meeting.id);
		expect(body.participants.map((p) => [p.name, p.talk_time_s])).toEqual([
			["Alice Liddell", 15.5],
			["Bob", 6],
			["Dan", 0],
		]);
		expect(body.speakers).toEqual([
			{ speaker: "Alice Liddell", talk_time_s: 10, participant_id: "spaces/x/devices/11" },
			{ speaker: "Bob", talk_time_s: 6, participant_id: "spaces/x/devices/22" },
			{ speaker: "alice  liddell ", talk_time_s: 5.5, participant_id: "spaces/x/devices/11" },
			{ speaker: "Carol", talk_time_s: 3, participant_id: null },
			{ speaker: "", talk_time_s: 1, participant_id: null },
		]);
		// The confirmation of the draft counts once it comes.
		await bot.send({ type: "segment", segment: segment({ segment_id: "b2", speaker: "Bob", start: 30, end: 34 }) });
		expect((await participantsOf(headers, meeting.id)).participants[1]?.talk_time_s).toBe(10);
	});

	it("gives no talk time to participants who share a name, since their speech cannot be told apart", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await liveMeeting(headers);
		await join(bot, "p-1", "Sam", 1);
		await join(bot, "p-2", "Sam", 2);
		await bot.send({ type: "segment", segment: segment({ segment_id: "s", speaker: "Sam", start: 0, end: 4 }) });
		const body = await participantsOf(headers, meeting.id);
		expect(body.participants.map((p) => p.talk_time_s)).toEqual([null, null]);
		expect(body.speakers).toEqual([{ speaker: "Sam", talk_time_s: 4, participant_id: null }]);
	});

	it("answers 404 for a meeting the key may not read", async () => {
		const owner = await userWithKey();
		const stranger = await userWithKey();
		const { meeting } = await liveMeeting(owner.headers);
		const res = await call("GET", `/meetings/${meeting.id}/participants`, { headers: stranger.headers });
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ detail: "Meeting not found" });
	});
});

describe("the meeting chat after the meeting ends", () => {
	const chat = (sender: string, text: string, timestamp: number, is_from_bot = false) => ({
		type: "chat" as const,
		message: { sender, text, timestamp, is_from_bot },
	});

	it("is answered from the record by GET /bots/{platform}/{native_id}/chat and GET /meetings/{id}/chat", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await bot.send(chat("<img src=x onerror=alert(1)>", "see <b>doc</b>", 1_700_000_000_123));
		await bot.send(chat("Notetaker", "noted", 1_700_000_000_456, true));
		const lines = [
			{ sender: "<img src=x onerror=alert(1)>", text: "see <b>doc</b>", timestamp: 1_700_000_000_123, is_from_bot: false },
			{ sender: "Notetaker", text: "noted", timestamp: 1_700_000_000_456, is_from_bot: true },
		];
		await bot.status("completed", { completion_reason: "stopped" });

		const byLink = await call("GET", `/bots/google_meet/${code}/chat`, { headers });
		expect(byLink.status).toBe(200);
		expect(await byLink.json()).toEqual({ messages: lines, meeting_id: meeting.id });
		const byId = await call("GET", `/meetings/${meeting.id}/chat`, { headers });
		expect(byId.status).toBe(200);
		expect(await byId.json()).toEqual({ messages: lines, meeting_id: meeting.id });
	});

	it("follows the newest meeting on the link: a new bot's meeting answers its own chat", async () => {
		const { headers } = await userWithKey();
		const first = await liveMeeting(headers);
		await first.bot.send(chat("Ann", "first meeting", 1_700_000_000_000));
		await first.bot.status("completed", { completion_reason: "stopped" });
		const second = await liveMeeting(headers, first.code);
		await second.bot.send(chat("Ben", "second meeting", 1_700_000_100_000));
		const body = await json<{ meeting_id: number; messages: { text: string }[] }>(
			await call("GET", `/bots/google_meet/${first.code}/chat`, { headers }),
		);
		expect(body.meeting_id).toBe(second.meeting.id);
		expect(body.messages.map((m) => m.text)).toEqual(["second meeting"]);
		const older = await json<{ messages: { text: string }[] }>(await call("GET", `/meetings/${first.meeting.id}/chat`, { headers }));
		expect(older.messages.map((m) => m.text)).toEqual(["first meeting"]);
	});

	it("GET /meetings/{id}/chat reads as participants do: a workspace member may, a stranger gets 404", async () => {
		const { owner, member, meeting, bot } = await workspaceMeeting();
		await bot.send(chat("Ann", "hello", 1_700_000_000_000));
		await bot.status("completed", { completion_reason: "stopped" });
		const shared = await call("GET", `/meetings/${meeting.id}/chat`, { headers: member.headers });
		expect(shared.status).toBe(200);
		expect(((await shared.json()) as { messages: unknown[] }).messages).toHaveLength(1);
		const stranger = await userWithKey();
		const refused = await call("GET", `/meetings/${meeting.id}/chat`, { headers: stranger.headers });
		expect(refused.status).toBe(404);
		expect(await refused.json()).toEqual({ detail: "Meeting not found" });
		const bad = await call("GET", "/meetings/abc/chat", { headers: owner.headers });
		expect(bad.status).toBe(422);
	});
});
