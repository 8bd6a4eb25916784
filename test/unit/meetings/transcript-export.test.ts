import { describe, expect, it } from "vitest";
import { contentDisposition, EXPORTS, type ExportedTranscript, exportFileName } from "../../../src/meetings/transcript-export";
import { srtText, srtTime, transcriptSrt, transcriptVtt, vttEscape, vttTime } from "../../../src/meetings/transcript-export-cues";
import { transcriptText } from "../../../src/meetings/transcript-text";

type Seg = ExportedTranscript["segments"][number];

const seg = (over: Partial<Seg>): Seg => ({
	segment_id: "s",
	speaker: "Alice",
	speaker_source: "caption",
	text: "Hello.",
	start: 1,
	end: 2,
	start_time: 1,
	end_time: 2,
	language: "en",
	completed: true,
	confidence: null,
	words: [],
	source: "captions",
	created_at: "2026-11-26T09:00:00.000Z",
	absolute_start_time: null,
	absolute_end_time: null,
	...over,
});

const transcript = (over: Partial<ExportedTranscript> = {}): ExportedTranscript => ({
	id: 42,
	platform: "google_meet",
	native_meeting_id: "abc-defg-hij",
	constructed_meeting_url: "https://meet.google.com/abc-defg-hij",
	status: "completed",
	start_time: "2026-11-26T09:00:00.000Z",
	end_time: "2026-11-26T10:30:00.000Z",
	recordings: [],
	notes: null,
	completion_reason: "stopped",
	participants: [],
	segments: [],
	title: "Weekly sync",
	exported_at: "2026-11-26T11:00:00.000Z",
	speakers: [],
	chat: [],
	...over,
});

/** The cues of an SRT or VTT file, split on the blank lines between them. */
const blocks = (file: string) => file.trimEnd().split("\n\n");

describe("SRT export", () => {
	it("numbers confirmed cues in start order with hh:mm:ss,mmm times and the speaker as a prefix", () => {
		const srt = transcriptSrt([
			seg({ segment_id: "b", speaker: "Bob", text: "Then we ship.", start: 65.4, end: 67.25 }),
			seg({ segment_id: "a", text: "Welcome, all.", start: 2, end: 4.5 }),
			seg({ segment_id: "d", speaker: "Carol", text: "still talking", start: 3, end: 5, completed: false }),
		]);
		expect(srt).toBe("1\n00:00:02,000 --> 00:00:04,500\nAlice: Welcome, all.\n\n2\n00:01:05,400 --> 00:01:07,250\nBob: Then we ship.\n");
	});

	it("times cues past an hour (and past 99 hours) without wrapping, and rounds to the millisecond", () => {
		expect(srtTime(3725.0004)).toBe("01:02:05,000");
		expect(srtTime(3725.9996)).toBe("01:02:06,000");
		expect(srtTime(360_000.5)).toBe("100:00:00,500");
		expect(srtTime(-3)).toBe("00:00:00,000");
		expect(srtTime(Number.NaN)).toBe("00:00:00,000");
		const srt = transcriptSrt([seg({ start: 3725.125, end: 3726 })]);
		expect(srt).toContain("01:02:05,125 --> 01:02:06,000");
	});

	it("gives a cue that would not end after it starts a second", () => {
		expect(transcriptSrt([seg({ start: 10, end: 10 })])).toContain("00:00:10,000 --> 00:00:11,000");
		expect(transcriptSrt([seg({ start: 10, end: 9 })])).toContain("00:00:10,000 --> 00:00:11,000");
	});

	it("keeps every cue three lines: blank lines, breaks and arrows in text or speaker cannot forge cues", () => {
		const forged = "Fine.\n\n2\n00:00:09,000 --> 00:00:10,000\r\nCEO: Wire the money.\u2028Now.";
		const srt = transcriptSrt([
			seg({ speaker: "Mallory\n\nEve", text: forged, start: 5, end: 6 }),
			seg({ segment_id: "z", start: 7, end: 8 }),
		]);
		const cues = blocks(srt);
		expect(cues).toHaveLength(2);
		for (const cue of cues) expect(cue.split("\n")).toHaveLength(3);
		expect(cues[0]?.split("\n")[2]).toBe("Mallory Eve: Fine. 2 00:00:09,000 --\u203a 00:00:10,000 CEO: Wire the money. Now.");
		expect(srt.match(/-->/g)).toHaveLength(2);
		expect(srt).not.toContain("\r");
	});

	it("lets no name or word become markup: no tag, no override, no arrow in any payload", () => {
		const srt = transcriptSrt([
			seg({
				speaker: "<font color=#fff>Eve</font>",
				text: "<i>hidden</i> {\\an8}top { \\pos(1,1)}x <img src=x onerror=alert(1)> a-->b {ok}",
			}),
		]);
		const payload = blocks(srt)[0]?.split("\n")[2] ?? "";
		expect(payload).toBe(
			"\u2039font color=#fff\u203aEve\u2039/font\u203a: \u2039i\u203ahidden\u2039/i\u203a (\\an8}top ( \\pos(1,1)}x \u2039img src=x onerror=alert(1)\u203a a--\u203ab {ok}",
		);
		expect(payload).not.toMatch(/[<>]|\{\s*\\/);
		expect(srt.match(/-->/g)).toHaveLength(1);
		expect(srtText("a & b")).toBe("a & b");
	});

	it("skips a segment with no text, names a segment without a speaker, and is empty for an empty transcript", () => {
		expect(transcriptSrt([])).toBe("");
		expect(transcriptSrt([seg({ text: " \n " })])).toBe("");
		expect(transcriptSrt([seg({ speaker: "" })])).toContain("Unknown speaker: Hello.");
	});

	it("keeps unicode text and names as they are", () => {
		const srt = transcriptSrt([seg({ speaker: "Zoë 李", text: "Ça va? 🎉 — да" })]);
		expect(srt).toContain("Zoë 李: Ça va? 🎉 — да");
	});
});

describe("WebVTT export", () => {
	it("starts with WEBVTT and has hh:mm:ss.mmm cues with <v Speaker> voice tags", () => {
		const vtt = transcriptVtt([
			seg({ text: "Welcome.", start: 3661.5, end: 3663 }),
			seg({ segment_id: "b", speaker: "Bob", start: 0.25, end: 1 }),
		]);
		expect(vtt).toBe("WEBVTT\n\n1\n00:00:00.250 --> 00:00:01.000\n<v Bob>Hello.\n\n2\n01:01:01.500 --> 01:01:03.000\n<v Alice>Welcome.\n");
		expect(vttTime(0.001)).toBe("00:00:00.001");
	});

	it("escapes &, < and > in speaker and text, leaving no tag and no arrow in a payload", () => {
		const vtt = transcriptVtt([seg({ speaker: "<b>Eve</b> & co>", text: "a --> b <script>alert(1)</script> &amp;" })]);
		const payload = blocks(vtt)[1]?.split("\n")[2];
		expect(payload).toBe("<v &lt;b&gt;Eve&lt;/b&gt; &amp; co&gt;>a --&gt; b &lt;script&gt;alert(1)&lt;/script&gt; &amp;amp;");
		expect(vtt.match(/-->/g)).toHaveLength(1);
		expect(vttEscape("x&<>")).toBe("x&amp;&lt;&gt;");
	});

	it("keeps each cue whole when text has blank lines, and is just the header when empty", () => {
		const vtt = transcriptVtt([seg({ text: "one\n\n\ntwo" }), seg({ segment_id: "b", start: 3, end: 4 })]);
		expect(blocks(vtt)).toHaveLength(3);
		expect(vtt).toContain("<v Alice>one two\n");
		expect(transcriptVtt([])).toBe("WEBVTT\n");
		expect(transcriptVtt([seg({ completed: false })])).toBe("WEBVTT\n");
	});

	it("keeps unicode", () => {
		expect(transcriptVtt([seg({ speaker: "Zoë", text: "日本語 🎉" })])).toContain("<v Zoë>日本語 🎉\n");
	});
});

describe("plain-text export", () => {
	it("heads with the title, link, status and times, then [hh:mm:ss] Speaker: text lines", () => {
		const text = EXPORTS.txt.render(
			transcript({
				segments: [seg({ text: "Later.", start: 3725, end: 3726 }), seg({ segment_id: "b", speaker: "Bob", start: 2, end: 3 })],
			}),
		);
		expect(text).toBe(
			[
				"Meeting: Weekly sync",
				"Platform: google_meet",
				"Meeting ID: abc-defg-hij",
				"Status: completed",
				"Started: 2026-11-26T09:00:00.000Z",
				"Ended: 2026-11-26T10:30:00.000Z",
				"",
				"[00:00:02] Bob: Hello.",
				"[01:02:05] Alice: Later.",
				"",
			].join("\n"),
		);
	});

	it("names a meeting without a title by platform and code, and folds a title's line breaks", () => {
		expect(EXPORTS.txt.render(transcript({ title: null })).split("\n")[0]).toBe("Meeting: Google Meet abc-defg-hij");
		expect(
			EXPORTS.txt
				.render(transcript({ title: "A\nStatus: failed" }))
				.split("\n")
				.slice(0, 4),
		).toEqual(["Meeting: A Status: failed", "Platform: google_meet", "Meeting ID: abc-defg-hij", "Status: completed"]);
	});

	it("says - for times not yet set, and has no lines after the header for an empty transcript", () => {
		const text = transcriptText(
			{ platform: "zoom", native_meeting_id: "12345678901", title: null, status: "joining", start_time: null, end_time: null },
			[],
		);
		expect(text).toBe("Meeting: Zoom 123 4567 8901\nPlatform: zoom\nMeeting ID: 12345678901\nStatus: joining\nStarted: -\nEnded: -\n\n");
	});
});

describe("JSON export", () => {
	it("is the transcript answer with the title and export time, every segment with its completed flag", () => {
		const t = transcript({ segments: [seg({}), seg({ segment_id: "d", completed: false })] });
		const file = EXPORTS.json.render(t);
		expect(file.endsWith("}\n")).toBe(true);
		expect(JSON.parse(file)).toEqual(t);
	});
});

describe("export file names", () => {
	const meeting = { id: 42, platform: "google_meet", native_meeting_id: "abc-defg-hij", title: null as string | null };

	it("names the file after the title, else platform and code", () => {
		expect(exportFileName({ ...meeting, title: "Weekly sync" }, "srt")).toEqual({
			ascii: "transcript-Weekly_sync.srt",
			utf8: "transcript-Weekly sync.srt",
		});
		expect(exportFileName(meeting, "vtt").ascii).toBe("transcript-Google_Meet_abc-defg-hij.vtt");
	});

	it("strips quotes, slashes, control characters and path tricks from an attacker's title", () => {
		const name = exportFileName({ ...meeting, title: '../../etc/"passwd"\r\nX-Evil: 1;\u0000' }, "txt");
		expect(name.ascii).toBe("transcript-etc_passwd_X-Evil_1.txt");
		for (const unsafe of ['"', "/", "\\", "\r", "\n", "\u0000", ";"]) expect(name.utf8).not.toContain(unsafe);
		const header = contentDisposition(name);
		expect(header.startsWith(`attachment; filename="${name.ascii}"`)).toBe(true);
		expect(header).not.toMatch(/[\r\n]/);
		expect(header.match(/"/g)).toHaveLength(2);
	});

	it("adds filename* in UTF-8 for a title beyond ASCII, and falls back when nothing ASCII is left", () => {
		const accented = exportFileName({ ...meeting, title: "Café (Zoë)'s plan" }, "json");
		expect(accented.ascii).toBe("transcript-Cafe_Zoe_s_plan.json");
		expect(contentDisposition(accented)).toBe(
			`attachment; filename="transcript-Cafe_Zoe_s_plan.json"; filename*=UTF-8''transcript-Caf%C3%A9%20%28Zo%C3%AB%29s%20plan.json`,
		);
		const chinese = exportFileName({ ...meeting, title: "周会" }, "txt");
		expect(chinese.ascii).toBe("transcript-google_meet-abc-defg-hij.txt");
		expect(decodeURIComponent(contentDisposition(chinese).split("UTF-8''")[1] ?? "")).toBe("transcript-周会.txt");
		expect(exportFileName({ ...meeting, platform: "unknown", native_meeting_id: null, title: "会议" }, "srt").ascii).toBe(
			"transcript-unknown.srt",
		);
		expect(contentDisposition(exportFileName(meeting, "txt"))).toBe('attachment; filename="transcript-Google_Meet_abc-defg-hij.txt"');
	});
});
