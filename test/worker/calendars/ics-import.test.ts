import { describe, expect, it } from "vitest";
import { findMeetingLink, importFeed } from "../../../src/calendars/ics-import";

const feed = (...events: string[]) => ["BEGIN:VCALENDAR", "VERSION:2.0", ...events, "END:VCALENDAR", ""].join("\r\n");
const event = (lines: string[]) => ["BEGIN:VEVENT", "DTSTAMP:20300101T000000Z", ...lines, "END:VEVENT"].join("\r\n");
const window = (iso: string) => ({ now: new Date(iso), horizonMs: 90 * 24 * 3600_000 });

describe("meeting links in event fields", () => {
	it("prefers the URL and conference fields over the location and description", () => {
		expect(
			findMeetingLink({
				description: "Old link https://meet.google.com/aaa-bbbb-ccc",
				location: "https://zoom.us/j/123456789",
				url: "https://meet.google.com/xyz-abcd-efg",
			})?.native_meeting_id,
		).toBe("xyz-abcd-efg");
		expect(findMeetingLink({ description: "x", location: "https://zoom.us/j/123456789" })?.platform).toBe("zoom");
	});

	it("finds a Teams link in angle brackets and a Zoom link followed by punctuation in free text", () => {
		const teams = findMeetingLink({
			description:
				"Click here to join the meeting<https://teams.microsoft.com/l/meetup-join/19%3ameeting_ZDk0YjM2@thread.v2/0?context=%7b%22Tid%22%3a%22t1%22%7d>\nMeeting ID: 1",
		});
		expect(teams).toMatchObject({ platform: "teams", native_meeting_id: "19:meeting_ZDk0YjM2@thread.v2" });
		const zoom = findMeetingLink({ location: "Zoom (https://us06web.zoom.us/j/98765432101?pwd=Zm9v)." });
		expect(zoom).toMatchObject({ platform: "zoom", native_meeting_id: "98765432101", passcode: "Zm9v" });
		expect(findMeetingLink({ description: "https://example.com/not-a-meeting and meet.google.com/abc" })).toBeNull();
	});
});

describe("importing against an injected clock", () => {
	it("keeps an event that is running now, drops one that has ended, and holds far events back to the horizon", () => {
		const text = feed(
			event(["UID:running", "DTSTART:20300110T095000Z", "DTEND:20300110T103000Z", "SUMMARY:Running"]),
			event(["UID:ended", "DTSTART:20300110T080000Z", "DTEND:20300110T090000Z", "SUMMARY:Ended"]),
			event(["UID:far", "DTSTART:20300601T100000Z", "SUMMARY:Far"]),
		);
		const result = importFeed(text, window("2030-01-10T10:00:00Z"));
		expect(result.ok).toBe(true);
		const byUid = new Map(result.ok ? result.events.map((e) => [e.uid, e]) : []);
		expect(byUid.get("running")?.occurrence?.start.toISOString()).toBe("2030-01-10T09:50:00.000Z");
		expect(byUid.get("ended")?.occurrence).toBeNull();
		expect(byUid.get("far")).toMatchObject({ withinHorizon: false, occurrence: { start: new Date("2030-06-01T10:00:00Z") } });
	});

	it("moves a series on to its next occurrence as time passes, and finds a yearly one months ahead", () => {
		const text = feed(
			event(["UID:weekly", "DTSTART;TZID=Europe/Berlin:20300107T100000", "DURATION:PT1H", "RRULE:FREQ=WEEKLY", "SUMMARY:Weekly"]),
			event(["UID:yearly", "DTSTART:20290915T120000Z", "DURATION:PT1H", "RRULE:FREQ=YEARLY", "SUMMARY:Yearly"]),
		);
		const at = (iso: string, uid: string) => {
			const result = importFeed(text, window(iso));
			return result.ok ? result.events.find((e) => e.uid === uid)?.occurrence?.start.toISOString() : undefined;
		};
		// 10:00 in Berlin in January is 09:00 UTC.
		expect(at("2030-01-08T00:00:00Z", "weekly")).toBe("2030-01-14T09:00:00.000Z");
		expect(at("2030-01-14T09:30:00Z", "weekly")).toBe("2030-01-14T09:00:00.000Z");
		expect(at("2030-01-14T10:30:00Z", "weekly")).toBe("2030-01-21T09:00:00.000Z");
		expect(at("2030-01-08T00:00:00Z", "yearly")).toBe("2030-09-15T12:00:00.000Z");
	});

	it("marks a cancelled event, and drops all-day entries", () => {
		const text = feed(
			event(["UID:gone", "DTSTART:20300110T120000Z", "STATUS:CANCELLED", "SUMMARY:Gone"]),
			event(["UID:holiday", "DTSTART;VALUE=DATE:20300111", "SUMMARY:Holiday"]),
		);
		const result = importFeed(text, window("2030-01-10T10:00:00Z"));
		expect(result.ok && result.events.map((e) => [e.uid, e.cancelled, e.occurrence])).toEqual([["gone", true, null]]);
	});
});
