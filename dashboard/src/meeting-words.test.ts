import { describe, expect, it } from "vitest";
import { httpUrl, isLive, meetingTitle, platformWords } from "./meeting-words";
import { testMeeting } from "./test-meeting";

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

	it("names a meeting by its title, else its platform and code, else as a meeting without a link and its date", () => {
		expect(meetingTitle(testMeeting({ data: { title: "Weekly" } }))).toBe("Weekly");
		expect(meetingTitle(testMeeting({ data: { title: "  " } }))).toBe("Google Meet abc-defg-hij");
		expect(meetingTitle(testMeeting({ platform: "zoom", native_meeting_id: "12345678901" }))).toBe("Zoom 123 4567 8901");
		expect(meetingTitle(testMeeting({ platform: "teams", native_meeting_id: "19:meeting_NjA4ZTk3YzctZGM0Ni00YzA4@thread.v2" }))).toBe(
			"Microsoft Teams meeting 19:meeting_NjA4Z…ead.v2",
		);
		const plan = testMeeting({ id: 3, platform: "unknown", native_meeting_id: null, status: "scheduled" });
		expect(meetingTitle(plan)).toBe("Meeting without a link, created 2026-06-18 10:00 UTC");
		expect(meetingTitle({ ...plan, data: { scheduled_at: "2026-07-01T15:00:00.000Z" } })).toBe(
			"Meeting without a link, planned for 2026-07-01 15:00 UTC",
		);
		expect(meetingTitle(plan)).not.toContain("3");
	});

	it("names platforms in words, a plan's unknown one as no link", () => {
		expect(["google_meet", "zoom", "teams", "unknown", "webex"].map(platformWords)).toEqual([
			"Google Meet",
			"Zoom",
			"Microsoft Teams",
			"no link",
			"webex",
		]);
	});

	it("live statuses are the ones a bot is in", () => {
		expect(["requested", "joining", "awaiting_admission", "needs_help", "active", "stopping"].every(isLive)).toBe(true);
		expect(["idle", "scheduled", "completed", "failed"].some(isLive)).toBe(false);
	});
});
