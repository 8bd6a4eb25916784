import { describe, expect, it } from "vitest";
import { srtTime, transcriptFileName, transcriptJson, transcriptSrt, transcriptText } from "./transcript-format";
import type { Segment, Transcript } from "./types";

const line = (id: string, speaker: string | null, text: string, start: number, end: number, completed = true): Segment => ({
	segment_id: id,
	speaker,
	text,
	start,
	end,
	language: "en",
	completed,
});

const transcript: Transcript = {
	id: 7,
	platform: "google_meet",
	native_meeting_id: "abc-defg-hij",
	constructed_meeting_url: "https://meet.google.com/abc-defg-hij",
	status: "completed",
	start_time: "2026-06-18T10:00:00.000Z",
	end_time: "2026-06-18T11:02:03.000Z",
	recordings: [],
	notes: null,
	completion_reason: "stopped",
	segments: [],
};

const segments = [
	line("2", "Bob", "Hi Alice.\nHow are\r\n  you?", 3725.4, 3727.05),
	line("1", "Alice", "Hello there.", 0.5, 2.25),
	line("3", "Alice", "still speaking", 3800, 3801, false),
	line("4", null, "who said this", 3802, 3802),
];

describe("transcript downloads", () => {
	it(".txt has the share's header and one [hh:mm:ss] Speaker: text line per confirmed segment, in order", () => {
		expect(transcriptText(transcript, segments)).toBe(
			[
				"Platform: google_meet",
				"Meeting ID: abc-defg-hij",
				"Started: 2026-06-18T10:00:00.000Z",
				"Ended: 2026-06-18T11:02:03.000Z",
				"",
				"[00:00:00] Alice: Hello there.",
				"[01:02:05] Bob: Hi Alice. How are you?",
				"[01:03:22] Unknown speaker: who said this",
				"",
			].join("\n"),
		);
	});

	it(".srt numbers the confirmed cues with comma milliseconds and gives a zero-length cue a second", () => {
		expect(transcriptSrt(segments)).toBe(
			[
				"1",
				"00:00:00,500 --> 00:00:02,250",
				"Alice: Hello there.",
				"",
				"2",
				"01:02:05,400 --> 01:02:07,050",
				"Bob: Hi Alice. How are you?",
				"",
				"3",
				"01:03:22,000 --> 01:03:23,000",
				"Unknown speaker: who said this",
				"",
			].join("\n"),
		);
		expect(srtTime(-3)).toBe("00:00:00,000");
		expect(srtTime(59.9996)).toBe("00:01:00,000");
	});

	it(".json is the transcript response with the page's segments, drafts marked, and parses back", () => {
		const parsed = JSON.parse(transcriptJson(transcript, segments));
		expect(parsed.native_meeting_id).toBe("abc-defg-hij");
		expect(parsed.segments).toHaveLength(4);
		expect(parsed.segments[2]).toMatchObject({ segment_id: "3", completed: false, start: 3800, start_time: 3800, end_time: 3801 });
	});

	it("file names keep only safe characters of the meeting id", () => {
		expect(transcriptFileName({ platform: "teams", native_meeting_id: "19:meeting/../x?y" }, "srt")).toBe(
			"transcript-teams-19_meeting_.._x_y.srt",
		);
	});
});
