import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { type Meeting, meetCode } from "../../shared/meetings";
import { roomTimers } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { calendar, connect, firstSync, isoOf, newFeed, serveFeed, sync, utcIn, vevent } from "./feeds";

async function meetings(headers: Record<string, string>): Promise<Meeting[]> {
	return (await json<{ meetings: Meeting[] }>(await call("GET", "/meetings?limit=500", { headers }))).meetings;
}

describe("calendar sync", () => {
	it("follows a feed that changes between syncs, and a second sync of an unchanged feed changes nothing", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const [m1, m2, m3, m4] = [meetCode(), meetCode(), meetCode(), meetCode()];
		const [t1, t2, t3, t4, moveTo] = [utcIn(2), utcIn(3), utcIn(4), utcIn(30), utcIn(6)];
		const event = (uid: string, start: string, title: string, code: string, extra: Record<string, string> = {}) =>
			vevent({ UID: uid, DTSTART: start, DURATION: "PT30M", SUMMARY: title, LOCATION: `https://meet.google.com/${code}`, ...extra });
		await serveFeed(
			feed,
			calendar(event("moves@x", t1, "Moves", m1), event("goes@x", t2, "Goes away", m2), event("cancels@x", t3, "Gets cancelled", m3)),
		);
		const cal = await connect(headers, feed);
		expect(firstSync(cal).counts).toEqual({ created: 3, updated: 0, cancelled: 0 });
		expect((await sync(headers, cal.id)).counts).toEqual({ created: 0, updated: 0, cancelled: 0 });
		const before = await meetings(headers);
		const moved = before.find((m) => m.data.title === "Moves");
		const goes = before.find((m) => m.data.title === "Goes away");
		expect((await roomTimers(goes?.id ?? 0)).plan).toMatchObject({ scheduledAt: isoOf(t2) });

		await serveFeed(
			feed,
			calendar(
				event("moves@x", moveTo, "Moved", m1),
				event("cancels@x", t3, "Gets cancelled", m3, { STATUS: "CANCELLED" }),
				event("new@x", t4, "New one", m4),
			),
		);
		expect((await sync(headers, cal.id)).counts).toEqual({ created: 1, updated: 1, cancelled: 2 });
		const after = await meetings(headers);
		expect(after.map((m) => m.data.title).sort()).toEqual(["Moved", "New one"]);
		// The moved event is the same record, at its new time, re-armed there.
		const same = after.find((m) => m.id === moved?.id);
		expect(same?.data.scheduled_at).toBe(isoOf(moveTo));
		expect((await roomTimers(moved?.id ?? 0)).plan).toMatchObject({ scheduledAt: isoOf(moveTo) });
		// The plans of the vanished and the cancelled event are gone, and so is their auto-join.
		expect((await call("GET", `/meetings/${goes?.id}`, { headers })).status).toBe(404);
		expect((await roomTimers(goes?.id ?? 0)).plan).toBeUndefined();

		expect((await sync(headers, cal.id)).counts).toEqual({ created: 0, updated: 0, cancelled: 0 });
		expect((await meetings(headers)).map((m) => m.id).sort()).toEqual(after.map((m) => m.id).sort());
	});

	it("applies a connection's new name, auto-join and bot name to its plans on the next sync, not before", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		await serveFeed(feed, calendar(vevent({ UID: "e@x", DTSTART: utcIn(3), SUMMARY: "E", URL: `https://meet.google.com/${meetCode()}` })));
		const cal = await connect(headers, feed, { name: "Old", bot_name: "Old bot" });
		const [armed] = await meetings(headers);
		expect((await roomTimers(armed?.id ?? 0)).plan).toMatchObject({ autoJoin: true });
		await call("PATCH", `/user/calendars/${cal.id}`, { headers, json: { name: "New", auto_join: false, bot_name: "New bot" } });
		const [plan] = await meetings(headers);
		expect(plan?.data.calendar_sources).toEqual([{ id: cal.id, name: "Old", auto_join: true, bot_name: "Old bot" }]);

		expect((await sync(headers, cal.id)).counts).toEqual({ created: 0, updated: 1, cancelled: 0 });
		const [after] = await meetings(headers);
		expect(after?.data.calendar_sources).toEqual([{ id: cal.id, name: "New", auto_join: false, bot_name: "New bot" }]);
		expect(after).toMatchObject({ auto_join: false });
		const botName = await env.DB.prepare("SELECT bot_name FROM meetings WHERE id = ?").bind(after?.id).first<string>("bot_name");
		expect(botName).toBe("New bot");
		expect((await roomTimers(after?.id ?? 0)).plan).toBeUndefined();
	});

	it("keeps a linkless event visible as unknown, and makes it joinable once its link appears", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const start = utcIn(3);
		await serveFeed(feed, calendar(vevent({ UID: "later-link@x", DTSTART: start, SUMMARY: "TBD", LOCATION: "Somewhere" })));
		const cal = await connect(headers, feed);
		const [plan] = await meetings(headers);
		expect(plan).toMatchObject({ platform: "unknown", native_meeting_id: null, status: "scheduled" });
		expect((await roomTimers(plan?.id ?? 0)).plan).toBeUndefined();

		const code = meetCode();
		await serveFeed(
			feed,
			calendar(vevent({ UID: "later-link@x", DTSTART: start, SUMMARY: "TBD", DESCRIPTION: `Link: https://meet.google.com/${code}` })),
		);
		expect((await sync(headers, cal.id)).counts.updated).toBe(1);
		const [joinable] = await meetings(headers);
		expect(joinable).toMatchObject({ id: plan?.id, platform: "google_meet", native_meeting_id: code });
		expect((await roomTimers(plan?.id ?? 0)).plan).toMatchObject({ joinable: true, autoJoin: true });
	});

	it("does not bring back a plan the user deleted until its event changes", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const body = (start: string) => calendar(vevent({ UID: "deleted@x", DTSTART: start, SUMMARY: "Skip me" }));
		await serveFeed(feed, body("{{D+2}}T100000Z"));
		const cal = await connect(headers, feed);
		const [plan] = await meetings(headers);
		expect((await call("DELETE", `/meetings/${plan?.id}`, { headers })).status).toBe(204);
		expect((await sync(headers, cal.id)).counts).toEqual({ created: 0, updated: 0, cancelled: 0 });
		expect(await meetings(headers)).toEqual([]);
		await serveFeed(feed, body("{{D+5}}T100000Z"));
		expect((await sync(headers, cal.id)).counts.created).toBe(1);
	});

	it("reports a feed that answers 404 as last_error with 200, without the address, and keeps existing plans", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		await serveFeed(feed, calendar(vevent({ UID: "keep@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "Keep" })));
		const cal = await connect(headers, feed);
		await serveFeed(feed, "Not Found", { status: 404, contentType: "text/plain" });
		const errors = vi.spyOn(console, "error");
		const res = await call("POST", `/user/calendars/${cal.id}/sync`, { headers });
		expect(res.status).toBe(200);
		const text = await res.text();
		expect(JSON.parse(text)).toMatchObject({
			last_error: "The calendar feed answered HTTP 404",
			counts: { created: 0, updated: 0, cancelled: 0 },
		});
		expect(text).not.toContain(feed.path);
		expect(JSON.stringify(errors.mock.calls)).not.toContain(feed.path);
		errors.mockRestore();
		expect(await meetings(headers)).toHaveLength(1);
	});

	it("reports malformed feeds (a web page, a truncated file, a broken event) as last_error, never a 500", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const cal = await connect(headers, feed);
		const cases: [string, string][] = [
			["<!doctype html><html><body>Sign in to Google Calendar</body></html>", "not an iCalendar"],
			["BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:cut@x\r\nDTSTART:20300101T100000Z\r\nSUMMA", "incomplete"],
			[
				calendar(vevent({ UID: "twice@x", DTSTART: "{{D+2}}T100000Z" }).replace("END:VEVENT", "DTSTART:20300101T100000Z\nEND:VEVENT")),
				"could not be parsed",
			],
		];
		for (const [body, error] of cases) {
			await serveFeed(feed, body, { contentType: "text/html" });
			const res = await call("POST", `/user/calendars/${cal.id}/sync`, { headers });
			expect(res.status).toBe(200);
			expect((await json<{ last_error: string }>(res)).last_error).toContain(error);
		}
		// A feed that recovers syncs again and clears the error.
		await serveFeed(feed, calendar(vevent({ UID: "fine@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "Fine" })));
		expect(await sync(headers, cal.id)).toMatchObject({ last_error: null, counts: { created: 1 } });
	});

	it("imports a 5 MB feed of long history in time, planning only what is upcoming", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const filler = "Agenda and notes from the meeting. ".repeat(12);
		const past: string[] = [];
		for (let i = 0, size = 0; size < 5 * 1024 * 1024; i++) {
			const hour = String(8 + (i % 10)).padStart(2, "0");
			past.push(
				vevent({
					UID: `history-${i}@x`,
					DTSTART: `{{D-${1 + (i % 700)}}}T${hour}0000Z`,
					DURATION: "PT1H",
					SUMMARY: `Old meeting ${i}`,
					DESCRIPTION: filler,
				}),
			);
			size += (past.at(-1)?.length ?? 0) + 1;
		}
		const upcoming = [1, 2, 3].map((n) =>
			vevent({ UID: `soon-${n}@x`, DTSTART: `{{D+${n}}}T150000Z`, SUMMARY: `Soon ${n}`, URL: `https://meet.google.com/${meetCode()}` }),
		);
		const body = calendar(...past, ...upcoming);
		expect(body.length).toBeGreaterThan(5 * 1024 * 1024);
		// Connected before the feed is served: its first sync, at once, finds no calendar and plans nothing.
		const cal = await connect(headers, feed);
		await serveFeed(feed, body);
		const started = Date.now();
		const stamp = await sync(headers, cal.id);
		const took = Date.now() - started;
		expect(stamp).toMatchObject({ last_error: null, counts: { created: 3, updated: 0, cancelled: 0 } });
		expect(took).toBeLessThan(10_000);
		expect((await meetings(headers)).map((m) => m.data.title).sort()).toEqual(["Soon 1", "Soon 2", "Soon 3"]);
		expect((await sync(headers, cal.id)).counts).toEqual({ created: 0, updated: 0, cancelled: 0 });
	});
});
