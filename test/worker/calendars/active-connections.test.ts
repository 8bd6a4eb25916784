import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, json, userWithKey } from "../support";
import { type Connection, calendar, connect, firstSync, newFeed, serveFeed, vevent, viewOf } from "./feeds";

/**
 * "Active" calendar connection means enabled, everywhere: the limit of 10 counts enabled
 * connections, and the singular compatibility routes stand for the first enabled one.
 */

type Headers = Record<string, string>;

const patch = (headers: Headers, id: string, body: Record<string, unknown>) =>
	call("PATCH", `/user/calendars/${id}`, { headers, json: body });
const list = async (headers: Headers) =>
	(await json<{ calendars: Connection[] }>(await call("GET", "/user/calendars", { headers }))).calendars;
const maskOf = (feed: { url: string }) => `${new URL(feed.url).host}/….ics`;

describe("the limit on active calendar connections", () => {
	it("counts only enabled connections: a disabled one leaves room for another, and re-enabling an eleventh is 409", async () => {
		const { headers } = await userWithKey();
		const made: Connection[] = [];
		for (let i = 0; i < 10; i++) made.push(await connect(headers, newFeed(), { name: `Calendar ${i + 1}` }));
		const refused = await call("POST", "/user/calendars", { headers, json: { name: "Eleventh", ics_url: newFeed().url } });
		expect(refused.status).toBe(409);
		expect(await json(refused)).toEqual({ detail: "At most 10 active calendar connections per account; disable or delete one first" });

		const paused = made[0] as Connection;
		expect((await patch(headers, paused.id, { enabled: false })).status).toBe(200);
		const eleventh = await connect(headers, newFeed(), { name: "Eleventh" });
		expect(eleventh.enabled).toBe(true);
		expect(await list(headers)).toHaveLength(11);

		// Enabling the paused one would make eleven active: refused, and nothing about it changes.
		const again = await patch(headers, paused.id, { enabled: true, name: "Renamed" });
		expect(again.status).toBe(409);
		expect(await json(again)).toEqual({ detail: "At most 10 active calendar connections per account; disable or delete one first" });
		expect((await list(headers)).find((c) => c.id === paused.id)).toMatchObject({ enabled: false, name: "Calendar 1" });
		// Other changes to a disabled connection, and to an enabled one, still go through.
		expect(await json(await patch(headers, paused.id, { name: "Paused" }))).toMatchObject({ name: "Paused", enabled: false });
		expect(await json(await patch(headers, eleventh.id, { enabled: true, auto_join: false }))).toMatchObject({
			enabled: true,
			auto_join: false,
		});

		// Once another is disabled, it can be enabled again.
		expect((await patch(headers, eleventh.id, { enabled: false })).status).toBe(200);
		expect(await json(await patch(headers, paused.id, { enabled: true }))).toMatchObject({ id: paused.id, enabled: true });
		expect((await list(headers)).filter((c) => c.enabled)).toHaveLength(10);
	});

	it("keeps at most 50 connections in all, disabled ones included", async () => {
		const { user, headers } = await userWithKey();
		// 49 disabled connections, written straight to D1: making them through the API would meet the request bucket.
		const now = new Date().toISOString();
		const insert = env.DB.prepare(
			"INSERT INTO calendar_connections (id, user_id, name, auto_join, bot_name, enabled, next_sync_at, created_at, updated_at) VALUES (?, ?, ?, 1, 'Notetaker', 0, ?, ?, ?)",
		);
		await env.DB.batch(
			Array.from({ length: 49 }, (_, i) => insert.bind(`cal_paused_${user.id}_${i}`, user.id, `Paused ${i}`, now, now, now)),
		);
		const fiftieth = await connect(headers, newFeed(), { name: "Fiftieth" });
		expect(fiftieth.enabled).toBe(true);
		const refused = await call("POST", "/user/calendars", { headers, json: { name: "Fifty-first", ics_url: newFeed().url } });
		expect(refused.status).toBe(409);
		expect(await json(refused)).toEqual({
			detail: "At most 50 calendar connections per account, disabled ones included; delete one first",
		});
		// PUT /user/calendar creates one when none is active: refused the same way.
		await patch(headers, fiftieth.id, { enabled: false });
		expect((await call("PUT", "/user/calendar", { headers, json: { ics_url: newFeed().url } })).status).toBe(409);
		expect(await list(headers)).toHaveLength(50);
		expect((await call("DELETE", `/user/calendars/${fiftieth.id}`, { headers })).status).toBe(204);
		expect((await call("PUT", "/user/calendar", { headers, json: { ics_url: newFeed().url } })).status).toBe(200);
	});
});

describe("the singular routes stand for the first active connection", () => {
	it("reads, updates and disconnects the first enabled connection, never a disabled one before it", async () => {
		const { headers } = await userWithKey();
		const pausedFeed = newFeed();
		const activeFeed = newFeed();
		const paused = await connect(headers, pausedFeed, { name: "Paused", auto_join: false });
		const active = await connect(headers, activeFeed, { name: "Active", bot_name: "Active bot" });
		await patch(headers, paused.id, { enabled: false });

		expect(await json(await call("GET", "/user/calendar", { headers }))).toEqual({
			ics_url_set: true,
			ics_url_masked: maskOf(activeFeed),
			auto_join: true,
			bot_name: "Active bot",
		});

		const newer = newFeed();
		const put = await call("PUT", "/user/calendar", { headers, json: { ics_url: newer.url, auto_join: false } });
		expect(put.status).toBe(200);
		expect(await json(put)).toMatchObject({ ics_url_masked: maskOf(newer), auto_join: false });
		const after = await list(headers);
		expect(after.find((c) => c.id === active.id)).toMatchObject({ ics_url_masked: maskOf(newer), auto_join: false });
		expect(after.find((c) => c.id === paused.id)).toEqual({ ...viewOf(paused), enabled: false });

		// ics_url null disconnects the active one; the disabled one stays, and is not the account's calendar.
		const off = await call("PUT", "/user/calendar", { headers, json: { ics_url: null } });
		expect(await json(off)).toMatchObject({ ics_url_set: false, ics_url_masked: null });
		expect((await list(headers)).map((c) => c.id)).toEqual([paused.id]);
		expect(await json(await call("GET", "/user/calendar", { headers }))).toMatchObject({ ics_url_set: false, ics_url_masked: null });

		// With no active connection, PUT creates one rather than reviving the disabled one.
		const fresh = newFeed();
		await call("PUT", "/user/calendar", { headers, json: { ics_url: fresh.url } });
		const now = await list(headers);
		expect(now.map((c) => [c.name, c.enabled, c.ics_url_masked])).toEqual([
			["Paused", false, maskOf(pausedFeed)],
			["Calendar", true, maskOf(fresh)],
		]);
	});

	it("syncs and sums the active connections only; 404 when only disabled ones have a feed", async () => {
		const { headers } = await userWithKey();
		const pausedFeed = newFeed();
		const activeFeed = newFeed();
		await serveFeed(pausedFeed, calendar(vevent({ UID: "p1@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "Paused event" })));
		await serveFeed(activeFeed, calendar(vevent({ UID: "a1@x", DTSTART: "{{D+2}}T110000Z", SUMMARY: "Active event" })));
		const paused = await connect(headers, pausedFeed, { name: "Paused" });
		const active = await connect(headers, activeFeed, { name: "Active" });
		// Both synced once when connected; the paused one's stamp is kept but no longer summed.
		await patch(headers, paused.id, { enabled: false });
		expect(await json(await call("GET", "/user/calendar/sync", { headers }))).toEqual({
			last_sync: firstSync(active).last_sync,
			last_error: null,
			counts: { created: 1, updated: 0, cancelled: 0 },
		});
		await serveFeed(
			activeFeed,
			calendar(
				vevent({ UID: "a1@x", DTSTART: "{{D+2}}T110000Z", SUMMARY: "Active event" }),
				vevent({ UID: "a2@x", DTSTART: "{{D+3}}T110000Z", SUMMARY: "Another active event" }),
			),
		);

		const res = await call("POST", "/user/calendar/sync", { headers });
		expect(res.status).toBe(200);
		const body = await json<{ counts: object; calendars: { calendar_id: string }[]; last_sync: string }>(res);
		expect(body.calendars.map((s) => s.calendar_id)).toEqual([active.id]);
		expect(body.counts).toEqual({ created: 1, updated: 0, cancelled: 0 });
		expect(await json(await call("GET", "/user/calendar/sync", { headers }))).toEqual({
			last_sync: body.last_sync,
			last_error: null,
			counts: { created: 1, updated: 0, cancelled: 0 },
		});

		await patch(headers, active.id, { enabled: false });
		const none = await call("POST", "/user/calendar/sync", { headers });
		expect(none.status).toBe(404);
		expect(await json(none)).toEqual({ detail: "No active calendar feed" });
	});
});
