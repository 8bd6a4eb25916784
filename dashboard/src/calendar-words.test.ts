import { MeetbotApiError } from "@meetbot/client";
import { describe, expect, it } from "vitest";
import {
	addedWords,
	type CalendarView,
	calendarRefusal,
	countsWords,
	kindWords,
	rulesWords,
	signInReturn,
	sourceWords,
} from "./calendar-words";
import { byScheduledTime, planTime } from "./plan-time";

const ics: CalendarView = {
	id: "cal_1",
	name: "Work",
	ics_url_set: true,
	ics_url_masked: "calendar.example/….ics",
	auto_join: true,
	bot_name: "Notetaker",
	enabled: true,
	kind: "ics",
	account: null,
	auto_join_rules: { organizer_only: false, min_attendees: null },
};

describe("calendar words", () => {
	it("names the kind and the source", () => {
		expect(kindWords(ics)).toBe("ICS feed");
		expect(sourceWords(ics)).toBe("calendar.example/….ics");
		const google: CalendarView = { ...ics, kind: "google", account: "alice@example.com", ics_url_set: false, ics_url_masked: null };
		expect(kindWords(google)).toBe("Google Calendar");
		expect(sourceWords(google)).toBe("alice@example.com");
		expect(kindWords({ ...ics, kind: "microsoft" })).toBe("Microsoft 365");
	});

	it("says the rules", () => {
		expect(rulesWords({ organizer_only: false, min_attendees: null })).toBe("Joins every meeting with a link");
		expect(rulesWords({ organizer_only: true, min_attendees: 3 })).toBe("Joins only meetings you organise, with at least 3 attendees");
		expect(rulesWords({ organizer_only: false, min_attendees: 2 })).toBe("Joins meetings with at least 2 attendees");
		expect(rulesWords({ organizer_only: true, min_attendees: null })).toBe("Joins only meetings you organise");
	});

	it("says what a sync did, and what adding a calendar did", () => {
		expect(countsWords({ created: 1, updated: 2, cancelled: 0 })).toBe("1 meeting planned, 2 plans updated");
		expect(countsWords({ created: 0, updated: 0, cancelled: 0 })).toBe("Nothing changed");
		const stamp = { calendar_id: "cal_1", calendar_name: "Work", last_sync: "2026-06-18T10:00:00+00:00", last_error: null };
		expect(addedWords("Work", { ...stamp, counts: { created: 3, updated: 0, cancelled: 0 } })).toBe(
			"Calendar Work added and synced: 3 meetings planned.",
		);
		expect(
			addedWords("Work", { ...stamp, last_error: "The calendar feed answered HTTP 404", counts: { created: 0, updated: 0, cancelled: 0 } }),
		).toBe("Calendar Work added, but its first sync failed: The calendar feed answered HTTP 404");
		expect(addedWords("Work", null)).toBe("Calendar Work added; it syncs within a few minutes.");
	});

	it("puts a refusal in words, naming the field as the form labels it", () => {
		const field = new MeetbotApiError(
			422,
			[{ loc: ["body", "ics_url"], msg: "must be http(s)", type: "value_error" }],
			"POST /user/calendars",
		);
		expect(calendarRefusal(field)).toBe("ICS address: must be http(s)");
		const rule = new MeetbotApiError(
			422,
			[{ loc: ["body", "auto_join_rules", "min_attendees"], msg: "must be at least 1", type: "x" }],
			"PATCH",
		);
		expect(calendarRefusal(rule)).toBe("At least this many attendees: must be at least 1");
		expect(calendarRefusal(new MeetbotApiError(409, "At most 10 active calendar connections", "POST"))).toBe(
			"At most 10 active calendar connections",
		);
	});

	it("reads a sign-in's return from either query, an error before a connection", () => {
		expect(signInReturn(new URLSearchParams("calendar=cal_9"))).toEqual({ connected: "cal_9" });
		expect(signInReturn(new URLSearchParams(""), new URLSearchParams("calendar=cal_9"))).toEqual({ connected: "cal_9" });
		expect(signInReturn(new URLSearchParams("error=access_denied"))).toEqual({
			error: "The calendar was not connected: access was not granted at the provider",
		});
		expect(signInReturn(new URLSearchParams("calendar_error=Token exchange failed"))).toEqual({
			error: "The calendar was not connected: Token exchange failed",
		});
		expect(signInReturn(new URLSearchParams("q=x"))).toBeNull();
	});
});

describe("plan times", () => {
	it("shows the instant in the reader's zone, with the zone named", () => {
		expect(planTime("2026-06-18T10:00:00.000Z", "en-US", "Asia/Kolkata")).toBe("Thu, Jun 18, 2026, 3:30 PM GMT+5:30");
		expect(planTime(null)).toBeNull();
		expect(planTime("not a time")).toBeNull();
	});

	it("orders plans soonest first, those without a time last", () => {
		const plan = (id: number, at: string | null, created: string) => ({ id, created_at: created, data: at ? { scheduled_at: at } : {} });
		const sorted = byScheduledTime([
			plan(1, null, "2026-01-01T00:00:00Z"),
			plan(2, "2026-06-20T10:00:00Z", "2026-01-02T00:00:00Z"),
			plan(3, "2026-06-19T10:00:00Z", "2026-01-03T00:00:00Z"),
			plan(4, null, "2026-01-04T00:00:00Z"),
		]);
		expect(sorted.map((p) => p.id)).toEqual([3, 2, 4, 1]);
	});
});
