import { describe, expect, it } from "vitest";
import { attachmentName, TRANSCRIPT_DOWNLOADS } from "./transcript-format";

describe("transcript downloads", () => {
	it("offers the four formats the API exports", () => {
		expect(TRANSCRIPT_DOWNLOADS.map((d) => d.format)).toEqual(["txt", "srt", "vtt", "json"]);
	});

	it("names the file as the API's Content-Disposition does, UTF-8 first", () => {
		expect(attachmentName('attachment; filename="transcript-Weekly_sync.srt"', "x.srt")).toBe("transcript-Weekly_sync.srt");
		expect(
			attachmentName(
				`attachment; filename="transcript-Cafe_planning.json"; filename*=UTF-8''transcript-Caf%C3%A9%20planning.json`,
				"x.json",
			),
		).toBe("transcript-Café planning.json");
		expect(attachmentName("attachment; filename=plain.txt", "x.txt")).toBe("plain.txt");
	});

	it("cleans a name of path separators and control characters, and falls back when there is none", () => {
		expect(attachmentName(`attachment; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd%0A.txt`, "x.txt")).toBe("_.._etc_passwd_.txt");
		expect(attachmentName(`attachment; filename*=UTF-8''%E0%A4%A.txt; filename="ok.txt"`, "x.txt")).toBe("ok.txt");
		expect(attachmentName(null, "transcript.txt")).toBe("transcript.txt");
		expect(attachmentName("attachment", "transcript.txt")).toBe("transcript.txt");
		expect(attachmentName('attachment; filename=""', "transcript.txt")).toBe("transcript.txt");
	});
});
