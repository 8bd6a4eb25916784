import { describe, expect, it } from "vitest";
import { MEETING_LABEL_MAX, meetingLabel, titleOf } from "../../../src/meetings/meeting-label";

const THREAD = "19:meeting_NjA4ZTk3YzctZGM0Ni00YzA4LWI2YzgtNzAzZGVmZTc4OTRk@thread.v2";

describe("meetingLabel", () => {
	it("is the title where there is one, folded to one line", () => {
		expect(meetingLabel({ platform: "google_meet", native_meeting_id: "abc-defg-hij", data: { title: "Weekly sync" } })).toBe(
			"Weekly sync",
		);
		expect(meetingLabel({ platform: "zoom", native_meeting_id: "1", data: { title: "  Board\r\n\u2028review\t " } })).toBe("Board review");
	});

	it("bounds a long title with an ellipsis, counting characters, not UTF-16 units", () => {
		const label = meetingLabel({ platform: "zoom", native_meeting_id: "1", data: { title: "🎉".repeat(500) } });
		expect([...label]).toHaveLength(MEETING_LABEL_MAX);
		expect(label.endsWith("…")).toBe(true);
		expect(label.includes("\ud83c…")).toBe(false);
	});

	it("without a title, names the platform and its code", () => {
		expect(meetingLabel({ platform: "google_meet", native_meeting_id: "abc-defg-hij", data: { title: "  " } })).toBe(
			"Google Meet abc-defg-hij",
		);
		expect(meetingLabel({ platform: "google_meet", native_meeting_id: "abc-defg-hij", data: { title: 7 } })).toBe(
			"Google Meet abc-defg-hij",
		);
		expect(meetingLabel({ platform: "zoom", native_meeting_id: "12345678901" })).toBe("Zoom 123 4567 8901");
		expect(meetingLabel({ platform: "zoom", native_meeting_id: "1234567890" })).toBe("Zoom 123 456 7890");
		expect(meetingLabel({ platform: "zoom", native_meeting_id: "123456789" })).toBe("Zoom 123 456 789");
		expect(meetingLabel({ platform: "zoom", native_meeting_id: "jane.doe" })).toBe("Zoom jane.doe");
		expect(meetingLabel({ platform: "teams", native_meeting_id: "9876543210123" })).toBe("Microsoft Teams meeting 9876543210123");
	});

	it("shortens a long Teams thread id to its start and end", () => {
		const label = meetingLabel({ platform: "teams", native_meeting_id: THREAD, data: null });
		expect(label).toBe("Microsoft Teams meeting 19:meeting_NjA4Z…ead.v2");
		expect(label.length).toBeLessThan(50);
	});

	it("names a meeting without a link by its planned date, else its creation date, never by its record id", () => {
		expect(
			meetingLabel({
				platform: "unknown",
				native_meeting_id: null,
				data: { scheduled_at: "2026-12-01T09:30:00.000Z" },
				created_at: "2026-11-26T08:00:00.000Z",
			}),
		).toBe("Meeting without a link, planned for 2026-12-01 09:30 UTC");
		expect(meetingLabel({ platform: "unknown", native_meeting_id: null, data: {}, created_at: "2026-11-26T08:00:00.000Z" })).toBe(
			"Meeting without a link, created 2026-11-26 08:00 UTC",
		);
		expect(meetingLabel({ platform: "unknown", native_meeting_id: null, data: { scheduled_at: "not a date" } })).toBe(
			"Meeting without a link",
		);
	});

	it("titleOf is null for a missing or blank title", () => {
		expect(titleOf({ data: undefined })).toBeNull();
		expect(titleOf({ data: { title: "\n\n" } })).toBeNull();
		expect(titleOf({ data: { title: "Plan" } })).toBe("Plan");
	});
});
