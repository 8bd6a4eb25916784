import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_LINK_FIELD_CHARS } from "../../../src/calendars/event-link";
import { type Meeting, meetCode } from "../../shared/meetings";
import { call, json, userWithKey } from "../support";
import { watchExpansions } from "./expansions";
import { calendar, connect, firstSync, isoOf, newFeed, type Stamp, serveFeed, sync, tick, utcIn, vevent } from "./feeds";

/**
 * Feeds written to hurt: each is served by the local receiver and synced for real. Without the
 * caps, the dense series below take about 20 s of CPU each in workerd (more than this file's
 * test timeout for two), and a sync killed on its way stays first in line for every later tick.
 */

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
		expect(firstSync(cal)).toMatchObject({ last_error: null, counts: { created: 1, updated: 0, cancelled: 0 } });
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
		expect(firstSync(cal)).toMatchObject({ last_error: null, counts: { created: 2 } });
		const byTitle = new Map((await meetings(headers)).map((m) => [m.data.title, m]));
		expect(byTitle.get("Huge")).toMatchObject({ platform: "google_meet", native_meeting_id: near });
		expect(byTitle.get("Far")).toMatchObject({ platform: "unknown", native_meeting_id: null });
	});

	it("imports only the first CALENDAR_FEED_MAX_EVENTS events of a feed, in time order, and says so", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		// Written latest first, so that feed order and time order differ.
		const events = [9, 8, 7, 6, 5, 4, 3, 2].map((d) => vevent({ UID: `many-${d}@x`, DTSTART: `{{D+${d}}}T100000Z`, SUMMARY: `Day ${d}` }));
		// Connected before the feed is served: its first sync, at once, finds no calendar and plans nothing.
		const cal = await connect(headers, feed);
		await serveFeed(feed, calendar(...events));
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
		const badFirst = (await connectionRow(badCal.id))?.last_sync_at;
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
		expect((await connectionRow(badCal.id))?.last_sync_at).toBe(badFirst);
	});
});

describe("one sync's budget", () => {
	afterEach(() => vi.restoreAllMocks());

	/** The plans of a user: title → start. */
	const plans = async (userId: number) => {
		const { results } = await env.DB.prepare(
			"SELECT json_extract(data, '$.title') AS title, scheduled_at FROM meetings WHERE user_id = ? AND status IN ('idle', 'scheduled')",
		)
			.bind(userId)
			.all<{ title: string; scheduled_at: string }>();
		return new Map(results.map((r) => [r.title, r.scheduled_at]));
	};

	it("syncs the review's feed of 2,000 series every 15 minutes without expanding one, each planned at its next quarter hour", async () => {
		const { user, headers } = await userWithKey();
		const feed = newFeed();
		// Three days ago, on the minute; series i starts at minute i % 15 of the quarter hour.
		const first = Date.parse(isoOf(utcIn(-72)));
		const ics = (ms: number) =>
			new Date(ms)
				.toISOString()
				.replace(/[-:]/g, "")
				.replace(/\.\d{3}/, "");
		const series = Array.from({ length: 2000 }, (_, i) =>
			vevent({
				UID: `q-${i}@x`,
				DTSTART: ics(first + (i % 15) * 60_000),
				DURATION: "PT10M",
				RRULE: "FREQ=MINUTELY;INTERVAL=15",
				SUMMARY: `Q ${i}`,
			}),
		);
		// Connected before the feed is served: its first sync, at once, finds no calendar and plans nothing.
		const cal = await connect(headers, feed);
		await serveFeed(feed, calendar(...series));
		const expanded = watchExpansions();
		const before = Date.now();
		const stamp = await sync(headers, cal.id);
		const after = Date.now();
		expect(expanded.parsed).toBeGreaterThan(0);
		expect(expanded.uids).toEqual([]);
		expect(stamp).toMatchObject({ last_error: null, counts: { created: 2000, updated: 0, cancelled: 0 } });
		const planned = await plans(user.id);
		expect(planned.size).toBe(2000);
		for (const i of [0, 1, 7, 14, 15, 999, 1999]) {
			// The first start still running (10 minutes long) at the sync's moment, which lies between before and after.
			const offset = first + (i % 15) * 60_000;
			const next = (at: number) => offset + Math.ceil((at - 600_000 - offset + 1) / 900_000) * 900_000;
			expect([next(before), next(after)]).toContain(Date.parse(planned.get(`Q ${i}`) ?? ""));
		}
	});

	it("cuts a feed past the instances a sync may work out: 200 with last_error, the earliest series planned", async () => {
		const { user, headers } = await userWithKey();
		const feed = newFeed();
		// Every quarter hour by BYMINUTE (expanded, over 400 instances each): 60 of them need 25,000 or more.
		const series = Array.from({ length: 60 }, (_, i) =>
			vevent({
				UID: `by-${i}@x`,
				DTSTART: `{{D-2}}T${String(i % 24).padStart(2, "0")}0000Z`,
				DURATION: "PT10M",
				RRULE: "FREQ=HOURLY;BYMINUTE=0,15,30,45",
				SUMMARY: `By ${String(i).padStart(2, "0")}`,
			}),
		);
		// Connected before the feed is served: its first sync, at once, finds no calendar and plans nothing.
		const cal = await connect(headers, feed);
		await serveFeed(feed, calendar(...series));
		const res = await call("POST", `/user/calendars/${cal.id}/sync`, { headers });
		expect(res.status).toBe(200);
		const stamp = await json<Stamp>(res);
		const cut =
			/^The calendar feed's recurring events need more than 20,000 instances worked out: (\d+) events were imported, (\d+) series are left as they were$/.exec(
				stamp.last_error ?? "",
			);
		expect(cut, stamp.last_error ?? "no last_error").not.toBeNull();
		const [imported, left] = [Number(cut?.[1]), Number(cut?.[2])];
		expect(imported + left).toBe(60);
		expect(left).toBeGreaterThan(0);
		expect(stamp.counts.created).toBe(imported);
		// Earliest first: the series whose first instance comes first (the day's earliest hours) are the ones planned.
		const byFirst = Array.from({ length: 60 }, (_, i) => i).sort((a, b) => (a % 24) - (b % 24) || a - b);
		expect([...(await plans(user.id)).keys()].sort()).toEqual(
			byFirst
				.slice(0, imported)
				.map((i) => `By ${String(i).padStart(2, "0")}`)
				.sort(),
		);
	});

	it("leaves what a later sync's budget does not reach as it was: nothing planned is cancelled", async () => {
		const { user, headers } = await userWithKey();
		const feed = newFeed();
		// 300 events: the parse takes two parts, so a budget of 0 ms stops it after the first.
		const events = Array.from({ length: 300 }, (_, i) =>
			vevent({ UID: `e-${i}@x`, DTSTART: `{{D+${1 + (i % 20)}}}T${String(8 + (i % 10)).padStart(2, "0")}0000Z`, SUMMARY: `E ${i}` }),
		);
		const twice = Array.from({ length: 30 }, (_, i) =>
			vevent({ UID: `t-${i}@x`, DTSTART: `{{D-${1 + i}}}T090000Z`, DURATION: "PT30M", RRULE: "FREQ=DAILY;BYHOUR=9,15", SUMMARY: `T ${i}` }),
		);
		await serveFeed(feed, calendar(...twice, ...events));
		const cal = await connect(headers, feed);
		const setDue = () =>
			env.DB.prepare("UPDATE calendar_connections SET next_sync_at = ? WHERE id = ?").bind("2000-01-01T00:00:00.000Z", cal.id).run();
		await setDue();
		await tick(Date.now());
		expect(await connectionRow(cal.id)).toMatchObject({ last_error: null });
		const planned = await plans(user.id);
		expect(planned.size).toBe(330);

		await setDue();
		await tick(Date.now(), { CALENDAR_FEED_MAX_INSTANCES: "100" });
		expect((await connectionRow(cal.id))?.last_error).toMatch(
			/^The calendar feed's recurring events need more than 100 instances worked out: \d+ events were imported, \d+ series are left as they were$/,
		);
		expect(await plans(user.id)).toEqual(planned);

		await setDue();
		await tick(Date.now(), { CALENDAR_IMPORT_BUDGET_MS: "0" });
		expect((await connectionRow(cal.id))?.last_error).toMatch(
			/^The calendar feed takes more than 0 s to import: \d+ events were imported, \d+ are left as they were$/,
		);
		expect(await plans(user.id)).toEqual(planned);
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
