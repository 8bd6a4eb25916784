import { afterEach, describe, expect, it, vi } from "vitest";
import { findMeetingLink, MAX_LINK_FIELD_CHARS, withoutTrailingPunctuation } from "../../../src/calendars/event-link";
import { importFeed, MAX_FEED_EVENTS, MAX_SERIES_INSTANCES } from "../../../src/calendars/ics-import";
import { watchExpansions } from "../../worker/calendars/expansions";

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

describe("hostile feeds stay bounded", () => {
	afterEach(() => vi.restoreAllMocks());

	it("reads a 200,000-character field in linear time, and only the first MAX_LINK_FIELD_CHARS of any field", () => {
		const link = "https://meet.google.com/abc-defg-hij";
		const hostile = `${link}${")".repeat(200_000)}a`;
		// The hostile run is not trimmed into a link (it goes on past the cut), and the next field is still read.
		expect(findMeetingLink({ location: hostile, description: "Join: https://meet.google.com/xyz-abcd-efg." })).toMatchObject({
			native_meeting_id: "xyz-abcd-efg",
		});
		expect(findMeetingLink({ description: hostile })).toBeNull();
		expect(withoutTrailingPunctuation(`${link}${").,;:!?]".repeat(40_000)}`)).toBe(link);
		expect(findMeetingLink({ description: `${"x ".repeat(MAX_LINK_FIELD_CHARS / 2 - 20)}${link}` })?.native_meeting_id).toBe(
			"abc-defg-hij",
		);
		expect(findMeetingLink({ description: `${"x ".repeat(MAX_LINK_FIELD_CHARS / 2)}${link}` })).toBeNull();
	});

	it("expands at most MAX_SERIES_INSTANCES instances of any series, and none that repeats more than MAX_SERIES_PER_DAY times a day", () => {
		const expanded = watchExpansions();
		const text = feed(
			event(["UID:secondly", "DTSTART:20300105T100000Z", "DURATION:PT30M", "RRULE:FREQ=SECONDLY", "SUMMARY:Secondly"]),
			event(["UID:minutely", "DTSTART:20250105T100000Z", "DURATION:PT30M", "RRULE:FREQ=MINUTELY;COUNT=100000000", "SUMMARY:Minutely"]),
			event([
				"UID:every-second",
				"DTSTART:20300105T000000Z",
				"DURATION:PT30M",
				`RRULE:FREQ=DAILY;BYHOUR=${range(24)};BYMINUTE=${range(60)};BYSECOND=${range(60)}`,
				"SUMMARY:Every second of the day",
			]),
			event(["UID:quarter-hourly", "DTSTART:20300105T000000Z", "DURATION:PT30M", "RRULE:FREQ=HOURLY;BYMINUTE=0,15,30,45", "SUMMARY:Q"]),
			event(["UID:half-hourly", "DTSTART:20300105T001000Z", "DURATION:PT20M", "RRULE:FREQ=MINUTELY;INTERVAL=30", "SUMMARY:H"]),
			event(["UID:weekly", "DTSTART:20300107T100000Z", "DURATION:PT1H", "RRULE:FREQ=WEEKLY", "SUMMARY:Weekly"]),
		);
		const result = importFeed(text, window("2030-01-10T00:00:00Z"));
		const starts = new Map(result.ok ? result.events.map((e) => [e.uid, e.occurrence?.start.toISOString() ?? null]) : []);
		expect(starts.get("secondly")).toBeNull();
		expect(starts.get("minutely")).toBeNull();
		expect(starts.get("every-second")).toBeNull();
		// 96 a day is still a series: planned at the instance running now (the 23:30 one has just ended).
		expect(starts.get("quarter-hourly")).toBe("2030-01-09T23:45:00.000Z");
		expect(starts.get("half-hourly")).toBe("2030-01-10T00:10:00.000Z");
		expect(starts.get("weekly")).toBe("2030-01-14T10:00:00.000Z");
		// The dense rules were never handed to the expansion, nor the simple ones (asked for their
		// next date instead), and no expansion gave more than the cap.
		expect(expanded.failed).toEqual([]);
		expect(expanded.uids.sort()).toEqual(["quarter-hourly"]);
		expect(Math.max(...expanded.sizes)).toBeLessThanOrEqual(MAX_SERIES_INSTANCES);
	});

	it("imports the first MAX_FEED_EVENTS upcoming or recurring events in time order, says so, and keeps past events", () => {
		const upcoming = Array.from({ length: MAX_FEED_EVENTS + 10 }, (_, i) => {
			const start = new Date(Date.parse("2030-01-11T00:00:00Z") + (MAX_FEED_EVENTS + 10 - i) * 600_000);
			return event([`UID:up-${i}`, `DTSTART:${ics(start)}`, "SUMMARY:Up"]);
		});
		const past = Array.from({ length: 20 }, (_, i) => event([`UID:past-${i}`, `DTSTART:202912${10 + i}T100000Z`, "SUMMARY:Past"]));
		const result = importFeed(feed(...past, ...upcoming), window("2030-01-10T00:00:00Z"));
		if (!result.ok) throw new Error(result.error);
		expect(result.warning).toBe(
			`The calendar feed has more than ${MAX_FEED_EVENTS} upcoming or recurring events; only the first ${MAX_FEED_EVENTS} are imported`,
		);
		const kept = result.events.filter((e) => e.occurrence !== null);
		expect(kept).toHaveLength(MAX_FEED_EVENTS);
		// The latest ten (written first in the feed) are the ones left out.
		expect(kept.map((e) => e.uid)).not.toContain("up-0");
		expect(kept.map((e) => e.uid)).toContain(`up-${MAX_FEED_EVENTS + 9}`);
		expect(result.events.filter((e) => e.uid.startsWith("past-"))).toHaveLength(20);
	});
});

const range = (n: number) => Array.from({ length: n }, (_, i) => i).join(",");
const ics = (d: Date) =>
	d
		.toISOString()
		.replace(/[-:]/g, "")
		.replace(/\.\d{3}/, "");
