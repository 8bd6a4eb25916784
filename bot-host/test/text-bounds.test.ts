/** What the bot reports stays within the channel's limits: long captions split, long chat shortened. */
import { describe, expect, it } from "vitest";
import { type BotSegment, BotToRoom, CHAT_SENDER_MAX, CHAT_TEXT_MAX, SEGMENT_TEXT_MAX } from "../../src/bot-channel/protocol.ts";
import { splitText } from "../bot/text-bounds.ts";
import { CaptionTracker, ChatTracker } from "../bot/transcript.ts";

/** `n` characters of words ("w0001 w0002 …"), so pieces can break at spaces. */
const words = (n: number) =>
	Array.from({ length: Math.ceil(n / 6) }, (_, i) => `w${String(i).padStart(4, "0")}`)
		.join(" ")
		.slice(0, n);

/** Whether the room would take this segment (the real channel schema). */
const accepted = (segment: BotSegment) => BotToRoom.safeParse({ type: "segment", seq: 1, segment }).success;

describe("splitting text into pieces", () => {
	it("cuts at the last space of each piece and loses no words", () => {
		const text = words(25_000);
		const pieces = splitText(text, SEGMENT_TEXT_MAX);
		expect(pieces).toHaveLength(3);
		for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(SEGMENT_TEXT_MAX);
		expect(pieces.join(" ")).toBe(text);
		for (const piece of pieces) expect(piece).toMatch(/^w\d{4}/);
	});

	it("cuts text without spaces at the limit, never inside a surrogate pair", () => {
		expect(splitText("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
		expect(splitText("abc😀def", 4)).toEqual(["abc", "😀de", "f"]);
		expect(splitText("short", 10)).toEqual(["short"]);
	});

	it("keeps a piece unchanged once text after it exists, however the text grows", () => {
		const text = words(12_000);
		const before = splitText(text, SEGMENT_TEXT_MAX);
		const after = splitText(`${text} more words follow`, SEGMENT_TEXT_MAX);
		expect(after[0]).toBe(before[0]);
	});
});

describe("a caption longer than a segment may be", () => {
	const track = () => {
		const sent: BotSegment[] = [];
		const tracker = new CaptionTracker({ prefix: "m1", callStartedAt: 0, settleMs: 1_000, language: "en", emit: (s) => sent.push(s) });
		return { sent, tracker };
	};

	it("is sent as several segments the room accepts, none dropped", () => {
		const { sent, tracker } = track();
		const text = words(25_000);
		tracker.update([{ key: "c1", speaker: "Ann", text }], [], 1_000);
		tracker.flush();
		const confirmed = sent.filter((s) => s.completed);
		expect(confirmed.map((s) => s.segment_id)).toEqual(["m1-c1", "m1-c1-2", "m1-c1-3"]);
		for (const s of sent) expect(accepted(s)).toBe(true);
		expect(confirmed.map((s) => s.text).join(" ")).toBe(text);
		for (const s of confirmed) expect(s).toMatchObject({ speaker: "Ann", speaker_source: "caption" });
	});

	it("starts a new segment when a growing caption passes the limit, timed from then", () => {
		const { sent, tracker } = track();
		const first = words(9_990);
		tracker.update([{ key: "c1", speaker: "Ann", text: first }], [], 1_000);
		tracker.update([{ key: "c1", speaker: "Ann", text: `${first} w9998 w9999 and on it goes` }], [], 3_000);
		tracker.update([{ key: "c1", speaker: "Ann", text: `${first} w9998 w9999 and on it goes` }], [], 4_500);
		for (const s of sent) expect(accepted(s)).toBe(true);
		const confirmed = sent.filter((s) => s.completed);
		expect(confirmed.map((s) => [s.segment_id, s.start])).toEqual([
			["m1-c1", 1],
			["m1-c1-2", 3],
		]);
		expect(confirmed.map((s) => s.text).join(" ")).toBe(`${first} w9998 w9999 and on it goes`);
	});
});

describe("chat lines the room would refuse", () => {
	it("are shortened, not dropped: sender to 256 and text to 4,000 characters", () => {
		const chat = new ChatTracker("Notetaker");
		const [message] = chat.update([{ sender: "A".repeat(300), text: "x".repeat(5_000) }], 7);
		expect(message?.sender).toHaveLength(CHAT_SENDER_MAX);
		expect(message?.text).toHaveLength(CHAT_TEXT_MAX);
		expect(message?.text.endsWith("x…")).toBe(true);
		expect(BotToRoom.safeParse({ type: "chat", seq: 1, message }).success).toBe(true);
		// The same long line re-rendered is not reported twice.
		expect(chat.update([{ sender: "A".repeat(300), text: "x".repeat(5_000) }], 8)).toEqual([]);
	});
});

describe("which chat lines are the bot's own", () => {
	it("only lines matching what the bot sent, not a participant named like the bot, You or Me", () => {
		const chat = new ChatTracker("Notetaker");
		const spoofed = chat.update(
			[
				{ sender: "You", text: "I am the bot" },
				{ sender: "Notetaker", text: "so am I" },
				{ sender: "Me", text: "me too" },
			],
			1,
		);
		expect(spoofed.map((m) => m.is_from_bot)).toEqual([false, false, false]);

		chat.noteSent("Summary:  the plan\n is set");
		const lines = [
			{ sender: "You", text: "I am the bot" },
			{ sender: "Notetaker", text: "so am I" },
			{ sender: "Me", text: "me too" },
			{ sender: "You", text: "Summary: the plan is set" },
		];
		expect(chat.update(lines, 2)).toEqual([{ sender: "You", text: "Summary: the plan is set", timestamp: 2, is_from_bot: true }]);
		// A participant repeating the bot's words later is not the bot: the sent text was used up.
		expect(chat.update([...lines, { sender: "You", text: "Summary: the plan is set" }], 3)).toEqual([
			{ sender: "You", text: "Summary: the plan is set", timestamp: 3, is_from_bot: false },
		]);
	});
});
