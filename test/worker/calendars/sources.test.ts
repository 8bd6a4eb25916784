import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type Meeting, meetCode } from "../../shared/meetings";
import { createPlan, getMeeting, roomTimers, sendBot } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { calendar, connect, firstSync, isoOf, newFeed, serveFeed, sync, utcIn, vevent } from "./feeds";

async function meetings(headers: Record<string, string>): Promise<Meeting[]> {
	return (await json<{ meetings: Meeting[] }>(await call("GET", "/meetings?limit=500", { headers }))).meetings;
}

const sourceIds = (m: Meeting | undefined) => ((m?.data.calendar_sources ?? []) as { id: string }[]).map((s) => s.id);

async function feedWith(...events: string[]) {
	const feed = newFeed();
	await serveFeed(feed, calendar(...events));
	return feed;
}

describe("calendar sources and cleanup", () => {
	it("makes one meeting with two sources of an event on two calendars, projected to exactly four keys", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const shared = vevent({
			UID: "shared-event@x",
			DTSTART: utcIn(4),
			SUMMARY: "All hands",
			URL: `https://meet.google.com/${code}`,
		});
		const work = await connect(headers, await feedWith(shared), { name: "Work", auto_join: false, bot_name: "Work bot" });
		const team = await connect(headers, await feedWith(shared), { name: "Team", auto_join: true, bot_name: "Team bot" });
		expect(firstSync(work).counts).toEqual({ created: 1, updated: 0, cancelled: 0 });
		expect(firstSync(team).counts).toEqual({ created: 0, updated: 1, cancelled: 0 });
		expect((await sync(headers, team.id)).counts).toEqual({ created: 0, updated: 0, cancelled: 0 });

		const list = await meetings(headers);
		expect(list).toHaveLength(1);
		const [meeting] = list;
		expect(meeting?.data.calendar_sources).toEqual([
			{ id: work.id, name: "Work", auto_join: false, bot_name: "Work bot" },
			{ id: team.id, name: "Team", auto_join: true, bot_name: "Team bot" },
		]);
		for (const source of (meeting?.data.calendar_sources ?? []) as Record<string, unknown>[]) {
			expect(Object.keys(source).sort()).toEqual(["auto_join", "bot_name", "id", "name"]);
		}
		// Any auto-joining source arms the meeting, with that source's bot name.
		expect(meeting?.auto_join).toBe(true);
		expect(await env.DB.prepare("SELECT bot_name FROM meetings WHERE id = ?").bind(meeting?.id).first("bot_name")).toBe("Team bot");
		expect((await roomTimers(meeting?.id ?? 0)).plan).toMatchObject({ autoJoin: true, joinable: true });
		expect((await getMeeting(headers, meeting?.id ?? 0)).data.calendar_sources).toEqual(meeting?.data.calendar_sources);
	});

	it("on delete: a shared meeting stays with one source, an orphaned plan goes, an adopted manual plan stays, live ones are untouched", async () => {
		const { headers } = await userWithKey();
		const [sharedCode, orphanCode, manualCode, liveCode] = [meetCode(), meetCode(), meetCode(), meetCode()];
		const event = (uid: string, code: string, hour: string) =>
			vevent({ UID: uid, DTSTART: `{{D+2}}T${hour}0000Z`, SUMMARY: uid, URL: `https://meet.google.com/${code}` });
		const manual = await createPlan(headers, { title: "My own plan", meeting_url: `https://meet.google.com/${manualCode}` });
		expect(manual.status).toBe("idle");

		const goes = await connect(
			headers,
			await feedWith(
				event("shared@x", sharedCode, "09"),
				event("orphan@x", orphanCode, "10"),
				event("manual@x", manualCode, "11"),
				event("live@x", liveCode, "12"),
			),
			{ name: "Goes" },
		);
		const stays = await connect(headers, await feedWith(event("shared@x", sharedCode, "09")), { name: "Stays" });
		expect(firstSync(goes).counts).toEqual({ created: 3, updated: 1, cancelled: 0 });

		const adopted = await getMeeting(headers, manual.id);
		expect(adopted).toMatchObject({ status: "scheduled", data: { title: "My own plan" } });
		expect(sourceIds(adopted)).toEqual([goes.id]);
		const byLink = async (code: string) => (await meetings(headers)).find((m) => m.native_meeting_id === code);
		const shared = await byLink(sharedCode);
		const orphan = await byLink(orphanCode);
		const live = await sendBot(headers, liveCode);
		expect(live.status).toBe("requested");
		expect(sourceIds(shared)).toEqual([goes.id, stays.id]);

		expect((await call("DELETE", `/user/calendars/${goes.id}`, { headers })).status).toBe(204);

		expect(sourceIds(await getMeeting(headers, shared?.id ?? 0))).toEqual([stays.id]);
		expect((await call("GET", `/meetings/${orphan?.id}`, { headers })).status).toBe(404);
		expect((await roomTimers(orphan?.id ?? 0)).plan).toBeUndefined();
		const kept = await getMeeting(headers, manual.id);
		expect(kept).toMatchObject({ status: "scheduled", data: { title: "My own plan" } });
		expect(kept.data.calendar_sources).toBeUndefined();
		const stillLive = await getMeeting(headers, live.id);
		expect(stillLive.status).toBe("requested");
		expect(sourceIds(stillLive)).toEqual([goes.id]);

		// The last calendar of the shared meeting goes too: now it is an orphan.
		expect((await call("DELETE", `/user/calendars/${stays.id}`, { headers })).status).toBe(204);
		expect((await call("GET", `/meetings/${shared?.id}`, { headers })).status).toBe(404);
		const leftover = await env.DB.prepare("SELECT count(*) AS n FROM calendar_events WHERE connection_id IN (?, ?)")
			.bind(goes.id, stays.id)
			.first("n");
		expect(leftover).toBe(0);
	});

	it("adopting a manual plan re-arms its room for the calendar's time, however far ahead", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const manual = await createPlan(headers, {
			meeting_url: `https://meet.google.com/${code}`,
			scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
		});
		expect((await roomTimers(manual.id)).plan).toMatchObject({ scheduledAt: manual.data.scheduled_at });
		const start = utcIn(24 * 6);
		const cal = await connect(
			headers,
			await feedWith(vevent({ UID: "adopt@x", DTSTART: start, SUMMARY: "Adopted", URL: `https://meet.google.com/${code}` })),
		);
		expect(firstSync(cal).counts).toEqual({ created: 0, updated: 1, cancelled: 0 });
		const adopted = await getMeeting(headers, manual.id);
		expect(adopted).toMatchObject({ status: "scheduled", data: { title: "Adopted", scheduled_at: isoOf(start) } });
		expect((await roomTimers(manual.id)).plan).toMatchObject({ scheduledAt: isoOf(start) });
	});

	it("leaves a meeting the bot lifecycle owns alone when its event moves or is cancelled", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const feed = newFeed();
		await serveFeed(
			feed,
			calendar(vevent({ UID: "now@x", DTSTART: "{{D+1}}T100000Z", SUMMARY: "Now", URL: `https://meet.google.com/${code}` })),
		);
		const cal = await connect(headers, feed);
		const live = await sendBot(headers, code);
		await serveFeed(
			feed,
			calendar(
				vevent({ UID: "now@x", DTSTART: "{{D+1}}T100000Z", SUMMARY: "Now", STATUS: "CANCELLED", URL: `https://meet.google.com/${code}` }),
			),
		);
		expect((await sync(headers, cal.id)).counts).toEqual({ created: 0, updated: 0, cancelled: 0 });
		const after = await getMeeting(headers, live.id);
		expect(after.status).toBe("requested");
		expect(after.data.title).toBe("Now");
	});

	it("defers the second of two events on one link until the first one's meeting is over", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const room = `https://meet.google.com/${code}`;
		const feed = newFeed();
		await serveFeed(
			feed,
			calendar(
				vevent({ UID: "first@x", DTSTART: "{{D+1}}T100000Z", SUMMARY: "First", URL: room }),
				vevent({ UID: "second@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "Second", URL: room }),
			),
		);
		const cal = await connect(headers, feed);
		expect(firstSync(cal).counts).toEqual({ created: 1, updated: 0, cancelled: 0 });
		expect((await meetings(headers)).map((m) => m.data.title)).toEqual(["First"]);
		expect((await sync(headers, cal.id)).counts).toEqual({ created: 0, updated: 0, cancelled: 0 });

		const [first] = await meetings(headers);
		await env.DB.prepare("UPDATE meetings SET status = 'completed' WHERE id = ?").bind(first?.id).run();
		expect((await sync(headers, cal.id)).counts).toEqual({ created: 1, updated: 0, cancelled: 0 });
		const open = (await meetings(headers)).filter((m) => m.status === "scheduled");
		expect(open.map((m) => m.data.title)).toEqual(["Second"]);
	});
});
