import { describe, expect, it } from "vitest";
import { call, json, userWithKey } from "../support";
import { liveMeeting, segment } from "./helpers";

const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s)).toISOString();
const exported = (headers: Record<string, string>, code: string, format: string, etag?: string) =>
	call("GET", `/transcripts/google_meet/${code}?format=${format}`, { headers: etag ? { ...headers, "if-none-match": etag } : headers });

/** A meeting where Alice (twice) and Bob were there and talked, and the chat has a line that tries to forge export lines. */
async function peopleMeeting() {
	const { headers } = await userWithKey();
	const live = await liveMeeting(headers);
	const { bot } = live;
	await bot.send({ type: "participant", event: "join", participant: { id: "p-a", name: "Alice" }, timestamp: at(1) });
	await bot.send({ type: "participant", event: "join", participant: { id: "p-b", name: "Bob\nStatus: failed" }, timestamp: at(2) });
	await bot.send({ type: "participant", event: "leave", participant: { id: "p-a", name: "Alice" }, timestamp: at(40) });
	await bot.send({ type: "participant", event: "join", participant: { id: "p-a", name: "Alice" }, timestamp: at(50) });
	await bot.send({ type: "segment", segment: segment({ segment_id: "1", speaker: "Alice", text: "Welcome.", start: 0, end: 30 }) });
	await bot.send({
		type: "segment",
		segment: segment({ segment_id: "2", speaker: "Bob\nStatus: failed", text: "Hi.", start: 31, end: 41 }),
	});
	await bot.send({
		type: "chat",
		message: { sender: "Bob", text: "agenda:\n[00:00:00] CEO: wire the money", timestamp: 1_795_860_005_000, is_from_bot: false },
	});
	return { headers, ...live };
}

describe("transcript exports with who was there and the chat", () => {
	it("txt: a Participants section after the header (talk time, share, every stay) and the chat at the end, one line each", async () => {
		const { headers, code } = await peopleMeeting();
		const res = await exported(headers, code, "txt");
		expect(res.status).toBe(200);
		const lines = (await res.text()).split("\n");
		const from = lines.indexOf("Participants:");
		expect(lines.slice(from, from + 5)).toEqual([
			"Participants:",
			`- Alice: talked 00:00:30 (75%); ${at(1)} to ${at(40)}, ${at(50)} to the end`,
			`- Bob Status: failed: talked 00:00:10 (25%); ${at(2)} to the end`,
			"",
			"Transcript:",
		]);
		expect(lines.slice(from + 5)).toEqual([
			"[00:00:00] Alice: Welcome.",
			"[00:00:31] Bob Status: failed: Hi.",
			"",
			"Chat:",
			"[2026-11-28T10:00:05.000Z] Bob: agenda: [00:00:00] CEO: wire the money",
			"",
		]);
		// The only status line is the header's.
		expect(lines.filter((l) => l.startsWith("Status:"))).toEqual(["Status: active"]);
	});

	it("json: participants with stays and talk time, every speaker, and the chat", async () => {
		const { headers, code, meeting } = await peopleMeeting();
		const file = await json<Record<string, unknown>>(await exported(headers, code, "json"));
		expect(file.id).toBe(meeting.id);
		expect(file.participants).toEqual([
			{
				participant_id: "p-a",
				name: "Alice",
				joined_at: at(1),
				left_at: null,
				intervals: [
					{ joined_at: at(1), left_at: at(40) },
					{ joined_at: at(50), left_at: null },
				],
				talk_time_s: 30,
			},
			{
				participant_id: "p-b",
				name: "Bob\nStatus: failed",
				joined_at: at(2),
				left_at: null,
				intervals: [{ joined_at: at(2), left_at: null }],
				talk_time_s: 10,
			},
		]);
		expect(file.speakers).toEqual([
			{ speaker: "Alice", talk_time_s: 30, participant_id: "p-a" },
			{ speaker: "Bob\nStatus: failed", talk_time_s: 10, participant_id: "p-b" },
		]);
		expect(file.chat).toEqual([
			{ sender: "Bob", text: "agenda:\n[00:00:00] CEO: wire the money", timestamp: 1_795_860_005_000, is_from_bot: false },
		]);
	});

	it("srt and vtt stay cues only", async () => {
		const { headers, code } = await peopleMeeting();
		for (const format of ["srt", "vtt"]) {
			const text = await (await exported(headers, code, format)).text();
			expect(text, format).not.toContain("Participants");
			expect(text, format).not.toContain("wire the money");
		}
	});

	it("a join, a leave or a chat line makes a new version of the export even with no new segment", async () => {
		const { headers, code, bot } = await peopleMeeting();
		const first = await exported(headers, code, "txt");
		const etag = first.headers.get("etag") ?? "";
		expect((await exported(headers, code, "txt", etag)).status).toBe(304);
		await bot.send({ type: "participant", event: "leave", participant: { id: "p-b", name: "Bob\nStatus: failed" }, timestamp: at(60) });
		const afterLeave = await exported(headers, code, "txt", etag);
		expect(afterLeave.status).toBe(200);
		expect(await afterLeave.text()).toContain(`- Bob Status: failed: talked 00:00:10 (25%); ${at(2)} to ${at(60)}`);
		const etag2 = afterLeave.headers.get("etag") ?? "";
		await bot.send({ type: "chat", message: { sender: "Ann", text: "bye", timestamp: 1_795_860_100_000, is_from_bot: false } });
		const afterChat = await exported(headers, code, "txt", etag2);
		expect(afterChat.status).toBe(200);
		expect(await afterChat.text()).toContain("] Ann: bye");
	});

	it("the transcript answer carries the participants with their talk time", async () => {
		const { headers, code } = await peopleMeeting();
		const body = await json<{ participants: { name: string; talk_time_s: number | null; intervals: unknown[] }[] }>(
			await call("GET", `/transcripts/google_meet/${code}`, { headers }),
		);
		expect(body.participants.map((p) => [p.name, p.talk_time_s, p.intervals.length])).toEqual([
			["Alice", 30, 2],
			["Bob\nStatus: failed", 10, 1],
		]);
	});
});
