import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_LINK_FIELD_CHARS } from "../../../src/calendars/event-link";
import { meetCode } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { calendar, connect, newFeed, type Stamp, serveFeed, sync, tick, vevent } from "./feeds";

/**
 * Feeds written to hurt: each is served by the local receiver and synced for real. Without the
 * caps, the dense series below take about 20 s of CPU each in workerd (more than this file's
 * test timeout for two), and a sync killed on its way stays first in line for every later tick.
 */

interface Meeting {
	platform: string;
	native_meeting_id: string | null;
	data: { title?: string };
}

async function meetings(headers: Record<string, string>): Promise<Meeting[]> {
	return (await json<{ meetings: Meeting[] }>(await call("GET", "/meetings?limit=500", { headers }))).meetings;
}

const connectionRow = (id: string) =>
	env.DB.prepare("SELECT last_sync_at, last_error, next_sync_at FROM calendar_connections WHERE id = ?")
		.bind(id)
		.first<{ last_sync_at: string | null; last_error: string | null; next_sync_at: string }>();

const range = (n: number) => Array.from({ length: n }, (_, i) => i).join(",");

describe("hostile calendar feeds", () => {
	it("syncs series that repeat every second or minute without expanding them, and plans the rest", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const everySecond = `FREQ=DAILY;BYHOUR=${range(24)};BYMINUTE=${range(60)};BYSECOND=${range(60)}`;
		await serveFeed(
			feed,
			calendar(
				vevent({ UID: "secondly@x", DTSTART: "{{D-2}}T100000Z", DURATION: "PT30M", RRULE: "FREQ=SECONDLY", SUMMARY: "Secondly" }),
				vevent({ UID: "minutely@x", DTSTART: "{{D-2}}T100000Z", DURATION: "PT30M", RRULE: "FREQ=MINUTELY", SUMMARY: "Minutely" }),
				vevent({ UID: "dense-1@x", DTSTART: "{{D-2}}T000000Z", DURATION: "PT30M", RRULE: everySecond, SUMMARY: "Dense 1" }),
				vevent({ UID: "dense-2@x", DTSTART: "{{D-3}}T000000Z", DURATION: "PT30M", RRULE: everySecond, SUMMARY: "Dense 2" }),
				vevent({ UID: "weekly@x", DTSTART: "{{D+1}}T090000Z", DURATION: "PT1H", RRULE: "FREQ=WEEKLY", SUMMARY: "Weekly" }),
			),
		);
		const cal = await connect(headers, feed);
		expect(await sync(headers, cal.id)).toMatchObject({ last_error: null, counts: { created: 1, updated: 0, cancelled: 0 } });
		expect((await meetings(headers)).map((m) => m.data.title)).toEqual(["Weekly"]);
	});

	it("finds the link next to a 200,000-character field, and none past the first MAX_LINK_FIELD_CHARS of a field", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		const [near, far] = [meetCode(), meetCode()];
		await serveFeed(
			feed,
			calendar(
				vevent({
					UID: "huge@x",
					DTSTART: "{{D+2}}T100000Z",
					SUMMARY: "Huge",
					LOCATION: `https://meet.google.com/${near}${")".repeat(200_000)}a`,
					DESCRIPTION: `Join: https://meet.google.com/${near}.`,
				}),
				vevent({
					UID: "far@x",
					DTSTART: "{{D+3}}T100000Z",
					SUMMARY: "Far",
					DESCRIPTION: `${"Notes ".repeat(MAX_LINK_FIELD_CHARS / 6)} https://meet.google.com/${far}`,
				}),
			),
		);
		const cal = await connect(headers, feed);
		expect(await sync(headers, cal.id)).toMatchObject({ last_error: null, counts: { created: 2 } });
		const byTitle = new Map((await meetings(headers)).map((m) => [m.data.title, m]));
		expect(byTitle.get("Huge")).toMatchObject({ platform: "google_meet", native_meeting_id: near });
		expect(byTitle.get("Far")).toMatchObject({ platform: "unknown", native_meeting_id: null });
	});

	it("imports only the first CALENDAR_FEED_MAX_EVENTS events of a feed, in time order, and says so", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		// Written latest first, so that feed order and time order differ.
		const events = [9, 8, 7, 6, 5, 4, 3, 2].map((d) => vevent({ UID: `many-${d}@x`, DTSTART: `{{D+${d}}}T100000Z`, SUMMARY: `Day ${d}` }));
		await serveFeed(feed, calendar(...events));
		const cal = await connect(headers, feed);
		await tick(Date.now() + 400_000, { CALENDAR_FEED_MAX_EVENTS: "5" });
		const row = await connectionRow(cal.id);
		expect(row?.last_error).toBe("The calendar feed has more than 5 upcoming or recurring events; only the first 5 are imported");
		expect((await meetings(headers)).map((m) => m.data.title).sort()).toEqual(["Day 2", "Day 3", "Day 4", "Day 5", "Day 6"]);
		const stamp = await json<Stamp>(await call("GET", `/user/calendars/${cal.id}/sync`, { headers }));
		expect(stamp).toMatchObject({ last_error: row?.last_error, counts: { created: 5 } });
	});

	it("moves a calendar out of line before its sync runs: one killed mid-way does not starve the others", async () => {
		const { headers } = await userWithKey();
		const bad = newFeed();
		await serveFeed(bad, calendar(vevent({ UID: "bad@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "Bad" })));
		const badCal = await connect(headers, bad, { name: "Bad" });
		const others = [];
		for (let i = 0; i < 4; i++) {
			const feed = newFeed();
			const body = calendar(vevent({ UID: `ok-${i}@x`, DTSTART: `{{D+${2 + i}}}T120000Z`, SUMMARY: `Ok ${i}` }));
			await serveFeed(feed, body);
			others.push({ feed, body, cal: await connect(headers, feed, { name: `Ok ${i}` }) });
		}
		// The last one answers slowly: it cannot finish before a killed sync running beside it.
		const last = others[3];
		if (!last) throw new Error("no last calendar");
		await fetch(`${env.WEBHOOK_RECEIVER_URL}/__control/script?path=${encodeURIComponent(last.feed.path)}`, {
			method: "POST",
			body: JSON.stringify({ responses: [{ status: 200, delay_ms: 1_500, body: last.body }] }),
		});
		// Due longest: the bad one first, then the four others (one tick syncs four at a time).
		const setDue = (id: string, at: string) =>
			env.DB.prepare("UPDATE calendar_connections SET next_sync_at = ? WHERE id = ?").bind(at, id).run();
		await setDue(badCal.id, "2000-01-01T00:00:00.000Z");
		for (const [i, other] of others.entries()) await setDue(other.cal.id, `2000-01-01T00:00:0${i + 1}.000Z`);

		const at = Date.now() + 400_000;
		await expect(tick(at, { DB: killedAtItsStamp(env.DB, badCal.id) })).rejects.toThrow("killed");
		expect(Date.parse((await connectionRow(badCal.id))?.next_sync_at ?? "")).toBeGreaterThan(at);

		// 120 s later the killed sync's lease has run out; the feed still kills every sync of it.
		await env.DB.prepare("UPDATE calendar_connections SET sync_lease_until = NULL WHERE id = ?").bind(badCal.id).run();
		await tick(at + 1_000, { DB: killedAtItsStamp(env.DB, badCal.id) });
		expect((await connectionRow(last.cal.id))?.last_sync_at).toBe(new Date(at + 1_000).toISOString().replace("Z", "+00:00"));
		expect((await connectionRow(badCal.id))?.last_sync_at).toBeNull();
	});
});

/**
 * The database as seen by a run that the runtime kills while it syncs `connectionId` (a feed
 * that exhausts the CPU limit): that sync's result is never written, and from then on nothing
 * of the run reaches the database.
 */
function killedAtItsStamp(db: D1Database, connectionId: string): D1Database {
	let killed = false;
	const kill = (): never => {
		killed = true;
		throw new Error("the run was killed");
	};
	return new Proxy(db, {
		get(target, key) {
			if (key === "prepare") {
				return (sql: string) => {
					if (killed) kill();
					const statement = target.prepare(sql);
					if (!sql.startsWith("UPDATE calendar_connections SET last_sync_at")) return statement;
					return {
						bind: (...values: unknown[]) => (values.at(-1) === connectionId ? { run: async () => kill() } : statement.bind(...values)),
					} as unknown as D1PreparedStatement;
				};
			}
			if (key === "batch") {
				return (statements: D1PreparedStatement[]) => (killed ? kill() : target.batch(statements));
			}
			const value: unknown = Reflect.get(target, key);
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
}
