import { describe, expect, it } from "vitest";
import { httpUrl, isLive, meetingTitle, reasonWords } from "./meeting-words";

describe("meeting words", () => {
	it("a meeting's link becomes an href only when it is http(s)", () => {
		expect(httpUrl("https://meet.google.com/abc-defg-hij")).toBe("https://meet.google.com/abc-defg-hij");
		expect(httpUrl("http://127.0.0.1:8080/x")).toBe("http://127.0.0.1:8080/x");
		expect(httpUrl("javascript:alert(1)")).toBeNull();
		expect(httpUrl(" JavaScript:alert(1)")).toBeNull();
		expect(httpUrl("data:text/html,<script>alert(1)</script>")).toBeNull();
		expect(httpUrl("meet.google.com/abc")).toBeNull();
		expect(httpUrl(null)).toBeNull();
	});

	it("names a meeting by its title, else its link id, else its record id", () => {
		expect(meetingTitle({ id: 3, native_meeting_id: "abc", data: { title: "Weekly" } })).toBe("Weekly");
		expect(meetingTitle({ id: 3, native_meeting_id: "abc", data: { title: "  " } })).toBe("abc");
		expect(meetingTitle({ id: 3, native_meeting_id: null, data: {} })).toBe("Meeting 3");
	});

	it("keeps the reason code beside its words, and an unknown reason as it came", () => {
		expect(reasonWords("awaiting_admission_timeout")).toBe("awaiting_admission_timeout: nobody admitted the bot in time");
		expect(reasonWords("something_new")).toBe("something_new");
		expect(reasonWords(null)).toBeNull();
	});

	it("live statuses are the ones a bot is in", () => {
		expect(["requested", "joining", "awaiting_admission", "needs_help", "active", "stopping"].every(isLive)).toBe(true);
		expect(["idle", "scheduled", "completed", "failed"].some(isLive)).toBe(false);
	});
});
