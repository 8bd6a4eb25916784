import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type Meeting, meetCode } from "../../shared/meetings";
import { roomTimers } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { calendar, connect, day, firstSync, isoOf, newFeed, renderFixture, serveFeed, tick, utcIn, vevent, zonedToUtc } from "./feeds";
import googleExport from "./fixtures/google-export.ics?raw";
import outlookExport from "./fixtures/outlook-export.ics?raw";
import threeZones from "./fixtures/three-time-zones.ics?raw";
import weeklySeries from "./fixtures/weekly-series.ics?raw";

async function meetings(headers: Record<string, string>): Promise<Meeting[]> {
	const res = await call("GET", "/meetings?limit=500", { headers });
	return (await json<{ meetings: Meeting[] }>(res)).meetings;
}

const byTitle = (list: Meeting[], title: string) => list.find((m) => m.data.title === title);

describe("importing real calendar exports", () => {
	it("imports a Google export: Meet and Zoom links found, a linkless event as unknown, all-day and past events skipped", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const meet = meetCode();
		await serveFeed(feed, renderFixture(googleExport, { MEET: meet, ZOOM: "84512345678" }));
		const calendar = await connect(headers, feed, { name: "Alice (Google)", bot_name: "Alice's notes" });

		const stamp = firstSync(calendar);
		expect(stamp).toMatchObject({ calendar_id: calendar.id, calendar_name: "Alice (Google)", last_error: null });
		expect(stamp.counts).toEqual({ created: 3, updated: 0, cancelled: 0 });
		expect(stamp.last_sync).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);

		const list = await meetings(headers);
		expect(list).toHaveLength(3);
		const planning = byTitle(list, "Planning with Carol");
		expect(planning).toMatchObject({
			platform: "google_meet",
			native_meeting_id: meet,
			constructed_meeting_url: `https://meet.google.com/${meet}`,
			status: "scheduled",
			auto_join: true,
		});
		expect(planning?.data).toEqual({
			title: "Planning with Carol",
			scheduled_at: zonedToUtc(day(2), "1000", "Europe/Berlin"),
			// Names only: "bob@example.org" is an address written as a name, and addresses are never kept.
			attendees: ["Alice Example", "Carol Jones"],
			calendar_sources: [{ id: calendar.id, name: "Alice (Google)", auto_join: true, bot_name: "Alice's notes" }],
		});
		const zoom = byTitle(list, "Partner sync (Zoom)");
		expect(zoom).toMatchObject({ platform: "zoom", native_meeting_id: "84512345678", status: "scheduled" });
		expect(zoom?.data.scheduled_at).toBe(`${day(3).replace(/(\d{4})(\d\d)(\d\d)/, "$1-$2-$3")}T16:00:00.000Z`);
		const desk = byTitle(list, "Desk time");
		expect(desk).toMatchObject({ platform: "unknown", native_meeting_id: null, constructed_meeting_url: null, status: "scheduled" });
		expect(JSON.stringify(list)).not.toContain("Weekly planning");
		expect(JSON.stringify(list)).not.toContain("@example");
	});

	it("imports an Outlook export: Windows time zone names, the Teams link from the description and conference field", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const thread = `19:meeting_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}@thread.v2`;
		const teams = `https://teams.microsoft.com/l/meetup-join/${encodeURIComponent(thread)}/0?context=%7b%22Tid%22%3a%22a1b2c3%22%2c%22Oid%22%3a%22d4e5f6%22%7d`;
		await serveFeed(feed, renderFixture(outlookExport, { TEAMS: teams }));
		const calendar = await connect(headers, feed, { name: "Outlook" });
		expect(firstSync(calendar).counts).toEqual({ created: 2, updated: 0, cancelled: 0 });

		const list = await meetings(headers);
		const review = byTitle(list, "Roadmap review");
		expect(review).toMatchObject({ platform: "teams", native_meeting_id: thread, status: "scheduled" });
		expect(review?.constructed_meeting_url).toContain("teams.microsoft.com/l/meetup-join/");
		expect(review?.data.scheduled_at).toBe(zonedToUtc(day(2), "0900", "America/Los_Angeles"));
		// The room and the address-as-name attendee are left out.
		expect(review?.data.attendees).toEqual(["Frank Miller"]);
		expect(byTitle(list, "Lunch")).toMatchObject({ platform: "unknown", status: "scheduled" });
		expect(byTitle(list, "Lunch")?.data.scheduled_at).toBe(zonedToUtc(day(3), "1200", "America/Los_Angeles"));
	});

	it("plans a weekly series once, at its next occurrence, skipping an EXDATE, a cancelled and a moved instance", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const meet = meetCode();
		await serveFeed(feed, renderFixture(weeklySeries, { MEET: meet }));
		const calendar = await connect(headers, feed);
		expect(firstSync(calendar).counts).toEqual({ created: 1, updated: 0, cancelled: 0 });

		const list = await meetings(headers);
		expect(list).toHaveLength(1);
		// D+1 is an EXDATE, D+8 is cancelled, D+15 moved to D+16 at 12:00.
		expect(list[0]).toMatchObject({ platform: "google_meet", native_meeting_id: meet, status: "scheduled" });
		expect(list[0]?.data).toMatchObject({ title: "Team standup (moved)", scheduled_at: zonedToUtc(day(16), "1200", "America/New_York") });
	});

	it("plans the series' very next occurrence when it has no exceptions", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const plain = weeklySeries
			.replace(/^EXDATE.*\n/m, "")
			.replace(/BEGIN:VEVENT\nDTSTART;TZID=America\/New_York:\{\{D\+8\}\}[\s\S]*?END:VEVENT\n/, "")
			.replace(/BEGIN:VEVENT\nDTSTART;TZID=America\/New_York:\{\{D\+16\}\}[\s\S]*?END:VEVENT\n/, "");
		await serveFeed(feed, renderFixture(plain, { MEET: meetCode() }));
		await connect(headers, feed);
		const list = await meetings(headers);
		expect(list.map((m) => m.data.scheduled_at)).toEqual([zonedToUtc(day(1), "1000", "America/New_York")]);
		expect(list[0]?.data.title).toBe("Team standup");
	});

	it("converts events in three time zones to the right instants", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		await serveFeed(feed, renderFixture(threeZones, { MEET1: meetCode(), MEET2: meetCode(), MEET3: meetCode() }));
		const calendar = await connect(headers, feed);
		expect(firstSync(calendar).counts.created).toBe(3);
		const list = await meetings(headers);
		const at = (title: string) => byTitle(list, title)?.data.scheduled_at;
		expect(at("Berlin morning")).toBe(zonedToUtc(day(3), "0930", "Europe/Berlin"));
		expect(at("Tokyo morning")).toBe(zonedToUtc(day(3), "0930", "Asia/Tokyo"));
		expect(at("Los Angeles morning")).toBe(zonedToUtc(day(3), "0930", "America/Los_Angeles"));
		// Same wall-clock time, three different instants: Tokyo first, Los Angeles last.
		expect(new Set([at("Berlin morning"), at("Tokyo morning"), at("Los Angeles morning")]).size).toBe(3);
		expect(Date.parse(String(at("Tokyo morning")))).toBeLessThan(Date.parse(String(at("Berlin morning"))));
		expect(Date.parse(String(at("Berlin morning")))).toBeLessThan(Date.parse(String(at("Los Angeles morning"))));
	});

	it("stores the connection's bot name on imported plans and arms auto-join for joinable plans due within a day", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const soon = utcIn(3);
		const later = utcIn(24 * 5);
		await serveFeed(
			feed,
			calendar(
				vevent({ UID: "soon@x", DTSTART: soon, SUMMARY: "Soon", URL: `https://meet.google.com/${meetCode()}` }),
				vevent({ UID: "later@x", DTSTART: later, SUMMARY: "Later", URL: `https://meet.google.com/${meetCode()}` }),
				vevent({ UID: "nolink@x", DTSTART: soon, SUMMARY: "No link", LOCATION: "Room 1" }),
			),
		);
		await connect(headers, feed, { bot_name: "Scribe" });
		const list = await meetings(headers);
		const [first, second, nolink] = ["Soon", "Later", "No link"].map((t) => byTitle(list, t));
		const names = await env.DB.prepare("SELECT DISTINCT bot_name FROM meetings WHERE id IN (?, ?, ?)")
			.bind(first?.id, second?.id, nolink?.id)
			.all<{ bot_name: string }>();
		expect(names.results.map((r) => r.bot_name)).toEqual(["Scribe"]);

		const armed = await roomTimers(first?.id ?? 0);
		expect(armed.plan).toMatchObject({ meetingId: first?.id, scheduledAt: isoOf(soon), autoJoin: true, joinable: true });
		expect(armed.timers.auto_join).toBe(Date.parse(isoOf(soon)) - 60_000);
		expect((await roomTimers(nolink?.id ?? 0)).plan).toBeUndefined();
		// Five days out: armed by the scheduled sweep once its day has come, not at import.
		expect((await roomTimers(second?.id ?? 0)).plan).toBeUndefined();
		await tick(Date.parse(isoOf(later)) - 23 * 3600_000);
		expect((await roomTimers(second?.id ?? 0)).plan).toMatchObject({ scheduledAt: isoOf(later), autoJoin: true });
		expect((await roomTimers(nolink?.id ?? 0)).plan).toBeUndefined();
	});

	it("never arms the plans of a calendar whose auto-join is off", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const soon = utcIn(2);
		await serveFeed(
			feed,
			calendar(vevent({ UID: "quiet@x", DTSTART: soon, SUMMARY: "Quiet", URL: `https://meet.google.com/${meetCode()}` })),
		);
		await connect(headers, feed, { name: "No auto-join", auto_join: false });
		const [plan] = await meetings(headers);
		expect(plan).toMatchObject({ auto_join: false, status: "scheduled", platform: "google_meet" });
		expect((await roomTimers(plan?.id ?? 0)).plan).toBeUndefined();
		await tick(Date.now() + 60_000);
		expect((await roomTimers(plan?.id ?? 0)).plan).toBeUndefined();
	});
});
