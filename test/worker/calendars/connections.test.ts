import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { call, json, userWithKey } from "../support";
import { type Connected, type Connection, calendar, connect, firstSync, newFeed, serveFeed, vevent } from "./feeds";

type FieldErrors = { detail: { loc: (string | number)[]; msg: string; type: string }[] };

async function post(headers: Record<string, string>, body: Record<string, unknown>) {
	return call("POST", "/user/calendars", { headers, json: body });
}

/** Calls the Worker with a changed deployment environment. */
async function callWith(overrides: Partial<Env>, method: string, path: string, headers: Record<string, string>, body?: unknown) {
	const ctx = createExecutionContext();
	const init =
		body === undefined
			? { method, headers }
			: { method, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) };
	const res = await worker.fetch(new Request(`https://gateway.test${path}`, init), { ...env, ...overrides } as Env, ctx);
	await waitOnExecutionContext(ctx);
	return res;
}

describe("calendar connections", () => {
	it("creates a masked connection (201), lists it, and never returns or stores the feed address in clear", async () => {
		const { user, headers } = await userWithKey();
		const feed = newFeed();
		await serveFeed(feed, "gone", { status: 404, contentType: "text/plain" });
		const res = await post(headers, { name: "  Work  ", ics_url: feed.url });
		expect(res.status).toBe(201);
		const { sync: first, ...created } = await json<Connected>(res);
		const secret = feed.path.split("/")[2] ?? "";
		// Synced at once; a feed that cannot be fetched still makes the connection, its stamp saying why.
		expect(first).toMatchObject({ calendar_id: created.id, calendar_name: "Work", last_error: "The calendar feed answered HTTP 404" });
		expect(JSON.stringify(first)).not.toContain(secret);
		expect(created).toEqual({
			id: expect.stringMatching(/^cal_[0-9a-f]{32}$/),
			name: "Work",
			ics_url_set: true,
			ics_url_masked: `${new URL(feed.url).host}/….ics`,
			auto_join: true,
			bot_name: "Notetaker",
			enabled: true,
			kind: "ics",
			account: null,
			auto_join_rules: { organizer_only: false, min_attendees: null },
		});
		const listed = await call("GET", "/user/calendars", { headers });
		const text = await listed.text();
		expect(JSON.parse(text)).toEqual({ calendars: [created] });
		expect(text).not.toContain(secret);
		const stored = await env.DB.prepare("SELECT * FROM calendar_connections WHERE user_id = ?")
			.bind(user.id)
			.first<Record<string, unknown>>();
		expect(JSON.stringify(stored)).not.toContain(secret);
		expect(String(stored?.ics_url_sealed)).toMatch(/^v1\./);
	});

	it("answers 409 on the eleventh connection and counts only existing ones", async () => {
		const { headers } = await userWithKey();
		const made: Connection[] = [];
		for (let i = 0; i < 10; i++) made.push(await connect(headers, newFeed(), { name: `Calendar ${i + 1}` }));
		const eleventh = await post(headers, { name: "Eleventh", ics_url: newFeed().url });
		expect(eleventh.status).toBe(409);
		expect((await json<{ detail: string }>(eleventh)).detail).toContain("10");
		expect((await call("DELETE", `/user/calendars/${made[0]?.id}`, { headers })).status).toBe(204);
		expect((await post(headers, { name: "Eleventh", ics_url: newFeed().url })).status).toBe(201);
	});

	it("refuses names and bot names outside 1 to 100 characters after trimming, with 422 field errors", async () => {
		const { headers } = await userWithKey();
		const url = newFeed().url;
		for (const body of [
			{ name: "   ", ics_url: url },
			{ name: "x".repeat(101), ics_url: url },
			{ name: "ok", ics_url: url, bot_name: " " },
			{ name: "ok", ics_url: url, bot_name: "b".repeat(101) },
		]) {
			const res = await post(headers, body);
			expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(422);
			const { detail } = await json<FieldErrors>(res);
			expect(detail[0]?.loc[0]).toBe("body");
		}
		expect((await post(headers, { name: "n".repeat(100), ics_url: url, bot_name: ` ${"b".repeat(100)} ` })).status).toBe(201);
	});

	it("refuses feed addresses that are not http(s), too long, or calendar pages, with guidance to the secret ICS address", async () => {
		const { headers } = await userWithKey();
		const cases: [string, string][] = [
			["ftp://example.com/cal.ics", "http(s)"],
			["not a url", "http(s)"],
			["webcal://p01-calendars.icloud.com/published/2/abc", "https://"],
			[`https://example.com/${"a".repeat(2040)}.ics`, "2048"],
			["https://calendar.google.com/calendar/embed?src=alice%40example.com&ctz=Europe%2FBerlin", "Secret address in iCal format"],
			["https://calendar.google.com/calendar/u/0/r", "Secret address in iCal format"],
			["https://outlook.office365.com/owa/calendar/0a1b2c@contoso.com/3d4e5f/calendar.html", "ICS"],
			["https://outlook.live.com/owa/calendar/00000000-0000/aaaa/cid-BBBB/index.html", "ICS"],
			["http://169.254.169.254/latest/meta-data", "not an allowed"],
		];
		for (const [ics_url, hint] of cases) {
			const res = await post(headers, { name: "x", ics_url });
			expect(res.status, ics_url.slice(0, 50)).toBe(422);
			const { detail } = await json<FieldErrors>(res);
			expect(detail[0]?.loc).toEqual(["body", "ics_url"]);
			expect(detail[0]?.msg).toContain(hint);
			// The message never repeats the address (it may be a credential).
			if (ics_url.length > 20) expect(detail[0]?.msg).not.toContain(ics_url.slice(8));
		}
		// The real secret addresses of both are fine (sync off, so that the test fetches nothing from them).
		for (const ics_url of [
			"https://calendar.google.com/calendar/ical/alice%40example.com/private-0123456789abcdef/basic.ics",
			"https://outlook.office365.com/owa/calendar/0a1b2c@contoso.com/3d4e5f/calendar.ics",
		]) {
			const res = await callWith({ CALENDAR_SYNC_ENABLED: "false" }, "POST", "/user/calendars", headers, { name: "ok", ics_url });
			expect(res.status).toBe(201);
			const masked = (await json<Connection>(res)).ics_url_masked ?? "";
			expect(masked).toMatch(/^(calendar\.google\.com|outlook\.office365\.com)\/…\.ics$/);
		}
	});

	it("patches any subset, and 404s unknown, deleted and other users' connections", async () => {
		const { headers } = await userWithKey();
		const other = await userWithKey();
		const mine = await connect(headers, newFeed(), { name: "Home" });
		const res = await call("PATCH", `/user/calendars/${mine.id}`, {
			headers,
			json: { name: " Family ", auto_join: false, bot_name: "Kitchen bot", enabled: false },
		});
		expect(res.status).toBe(200);
		// A change that is not a new address or an enabling runs no sync.
		expect(await json(res)).toEqual({ ...mine, name: "Family", auto_join: false, bot_name: "Kitchen bot", enabled: false, sync: null });

		const replaced = newFeed();
		const swapped = await json<Connected>(await call("PATCH", `/user/calendars/${mine.id}`, { headers, json: { ics_url: replaced.url } }));
		expect(swapped.ics_url_set).toBe(true);
		// Disabled: a new address is not synced until it is enabled.
		expect(swapped.sync).toBeNull();
		expect(
			(
				await call("PATCH", `/user/calendars/${mine.id}`, {
					headers,
					json: { ics_url: "https://calendar.google.com/calendar/embed?src=x" },
				})
			).status,
		).toBe(422);
		expect((await call("PATCH", `/user/calendars/${mine.id}`, { headers, json: { name: "" } })).status).toBe(422);
		expect((await call("PATCH", `/user/calendars/${mine.id}`, { headers, json: { colour: "red" } })).status).toBe(422);

		expect((await call("PATCH", `/user/calendars/${mine.id}`, { headers: other.headers, json: { name: "x" } })).status).toBe(404);
		expect((await call("DELETE", `/user/calendars/${mine.id}`, { headers: other.headers })).status).toBe(404);
		expect((await call("GET", `/user/calendars/${mine.id}/sync`, { headers: other.headers })).status).toBe(404);
		expect((await call("PATCH", "/user/calendars/cal_unknown", { headers, json: { name: "x" } })).status).toBe(404);

		expect((await call("DELETE", `/user/calendars/${mine.id}`, { headers })).status).toBe(204);
		expect((await call("DELETE", `/user/calendars/${mine.id}`, { headers })).status).toBe(404);
		expect((await call("PATCH", `/user/calendars/${mine.id}`, { headers, json: { name: "x" } })).status).toBe(404);
		expect((await call("POST", `/user/calendars/${mine.id}/sync`, { headers })).status).toBe(404);
		expect(await json(await call("GET", "/user/calendars", { headers }))).toEqual({ calendars: [] });
		const row = await env.DB.prepare("SELECT count(*) AS n FROM calendar_connections WHERE id = ?").bind(mine.id).first<number>("n");
		expect(row).toBe(0);
	});

	it("reads {} before the first sync, the stamp after it; a disabled connection cannot be synced (404)", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		await serveFeed(feed, calendar(vevent({ UID: "one@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "One" })));
		// Made while the deployment's sync is off, so it has not synced yet.
		const made = await callWith({ CALENDAR_SYNC_ENABLED: "false" }, "POST", "/user/calendars", headers, {
			name: "Work",
			ics_url: feed.url,
		});
		const cal = await json<Connected>(made);
		expect(cal.sync).toBeNull();
		expect(await json(await call("GET", `/user/calendars/${cal.id}/sync`, { headers }))).toEqual({});
		const stamp = await json(await call("POST", `/user/calendars/${cal.id}/sync`, { headers }));
		expect(await json(await call("GET", `/user/calendars/${cal.id}/sync`, { headers }))).toEqual(stamp);
		await call("PATCH", `/user/calendars/${cal.id}`, { headers, json: { enabled: false } });
		const disabled = await call("POST", `/user/calendars/${cal.id}/sync`, { headers });
		expect(disabled.status).toBe(404);
	});

	it("syncs at once when a connection gets a new feed address or is enabled again, and not for other changes", async () => {
		const { headers } = await userWithKey();
		const first = newFeed();
		const second = newFeed();
		await serveFeed(first, calendar(vevent({ UID: "first@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "From the first feed" })));
		await serveFeed(second, calendar(vevent({ UID: "second@x", DTSTART: "{{D+3}}T100000Z", SUMMARY: "From the second feed" })));
		const cal = await connect(headers, first);
		expect(firstSync(cal).counts).toEqual({ created: 1, updated: 0, cancelled: 0 });
		const patch = async (body: Record<string, unknown>) =>
			json<Connected>(await call("PATCH", `/user/calendars/${cal.id}`, { headers, json: body }));

		// A new address: its events replace the old feed's at once.
		const moved = await patch({ ics_url: second.url });
		expect(moved.sync).toMatchObject({ calendar_id: cal.id, last_error: null, counts: { created: 1, updated: 0, cancelled: 1 } });
		expect(await json(await call("GET", `/user/calendars/${cal.id}/sync`, { headers }))).toEqual(moved.sync);

		expect((await patch({ name: "Renamed" })).sync).toBeNull();
		expect((await patch({ enabled: false })).sync).toBeNull();
		await serveFeed(
			second,
			calendar(
				vevent({ UID: "second@x", DTSTART: "{{D+3}}T100000Z", SUMMARY: "From the second feed" }),
				vevent({ UID: "third@x", DTSTART: "{{D+4}}T100000Z", SUMMARY: "Added while disabled" }),
			),
		);
		// Enabling syncs what changed while it was disabled (the new event, and the rename reaching the
		// plan it kept); enabling an enabled one does not sync again.
		expect((await patch({ enabled: true })).sync?.counts).toEqual({ created: 1, updated: 1, cancelled: 0 });
		expect((await patch({ enabled: true })).sync).toBeNull();
	});

	it("answers 503 on every sync route when the deployment leaves calendar sync unwired", async () => {
		const { headers } = await userWithKey();
		const cal = await connect(headers, newFeed());
		const off = { CALENDAR_SYNC_ENABLED: "false" };
		for (const path of [`/user/calendars/${cal.id}/sync`, "/user/calendar/sync"]) {
			const res = await callWith(off, "POST", path, headers);
			expect(res.status, path).toBe(503);
			expect((await json<{ detail: string }>(res)).detail).toContain("not enabled");
		}
		// Reads still answer.
		expect((await callWith(off, "GET", `/user/calendars/${cal.id}/sync`, headers)).status).toBe(200);
	});

	it("documents the calendar and recording routes in the OpenAPI document", async () => {
		const doc = await json<{ paths: Record<string, Record<string, unknown>> }>(await call("GET", "/openapi.json"));
		expect(Object.keys(doc.paths["/user/calendars"] ?? {}).sort()).toEqual(["get", "post"]);
		expect(Object.keys(doc.paths["/user/calendars/{calendar_id}/sync"] ?? {}).sort()).toEqual(["get", "post"]);
		expect(Object.keys(doc.paths["/user/calendar"] ?? {}).sort()).toEqual(["get", "put"]);
		expect(Object.keys(doc.paths["/recordings/{recording_id}/media/{media_file_id}/raw"] ?? {})).toEqual(["get"]);
		expect(JSON.stringify(doc.paths["/user/calendars"])).toContain("ics_url");
	});

	it("stores no address after PATCH ics_url null, and a sync then reports the missing feed", async () => {
		const { headers } = await userWithKey();
		const cal = await connect(headers, newFeed());
		const cleared = await json<Connection>(await call("PATCH", `/user/calendars/${cal.id}`, { headers, json: { ics_url: null } }));
		expect(cleared).toMatchObject({ ics_url_set: false, ics_url_masked: null });
		const stamp = await json<{ last_error: string }>(await call("POST", `/user/calendars/${cal.id}/sync`, { headers }));
		expect(stamp.last_error).toBe("No calendar feed address is set");
		const sealed = await env.DB.prepare("SELECT ics_url_sealed FROM calendar_connections WHERE id = ?")
			.bind(cal.id)
			.first("ics_url_sealed");
		expect(sealed).toBeNull();
	});

	it("refuses browser-only keys", async () => {
		const { headers } = await userWithKey("browser");
		expect((await call("GET", "/user/calendars", { headers })).status).toBe(403);
	});
});

describe("singular compatibility endpoints", () => {
	it("reads a disconnected state, creates the first connection with PUT, and updates it in place", async () => {
		const { headers } = await userWithKey();
		expect(await json(await call("GET", "/user/calendar", { headers }))).toEqual({
			ics_url_set: false,
			ics_url_masked: null,
			auto_join: true,
			bot_name: null,
		});
		const feed = newFeed();
		const put = await call("PUT", "/user/calendar", { headers, json: { ics_url: feed.url, auto_join: false, bot_name: "Legacy bot" } });
		expect(put.status).toBe(200);
		const view = { ics_url_set: true, ics_url_masked: `${new URL(feed.url).host}/….ics`, auto_join: false, bot_name: "Legacy bot" };
		expect(await json(put)).toEqual(view);
		expect(await json(await call("GET", "/user/calendar", { headers }))).toEqual(view);
		const [first] = (await json<{ calendars: Connection[] }>(await call("GET", "/user/calendars", { headers }))).calendars;
		expect(first).toMatchObject({ auto_join: false, bot_name: "Legacy bot" });

		await call("PUT", "/user/calendar", { headers, json: { ics_url: newFeed().url, auto_join: true } });
		const all = (await json<{ calendars: Connection[] }>(await call("GET", "/user/calendars", { headers }))).calendars;
		expect(all).toHaveLength(1);
		expect(all[0]).toMatchObject({ id: first?.id, auto_join: true, bot_name: "Legacy bot" });
		// The legacy bot name is the fallback for later connections.
		expect((await connect(headers, newFeed(), { name: "Second" })).bot_name).toBe("Legacy bot");
	});

	it("without ics_url changes only the fields sent, as the reference does, and makes no connection", async () => {
		const { headers } = await userWithKey();
		// No connection yet: the legacy bot name is saved, and nothing is connected.
		const alone = await call("PUT", "/user/calendar", { headers, json: { auto_join: false, bot_name: "Early bot" } });
		expect(alone.status).toBe(200);
		expect(await json(alone)).toEqual({ ics_url_set: false, ics_url_masked: null, auto_join: true, bot_name: "Early bot" });
		expect(await json(await call("GET", "/user/calendars", { headers }))).toEqual({ calendars: [] });

		const feed = newFeed();
		await call("PUT", "/user/calendar", { headers, json: { ics_url: feed.url } });
		const masked = `${new URL(feed.url).host}/….ics`;
		const off = await call("PUT", "/user/calendar", { headers, json: { auto_join: false } });
		expect(off.status).toBe(200);
		expect(await json(off)).toEqual({ ics_url_set: true, ics_url_masked: masked, auto_join: false, bot_name: "Early bot" });
		const renamed = await call("PUT", "/user/calendar", { headers, json: { bot_name: "Later bot" } });
		expect(await json(renamed)).toEqual({ ics_url_set: true, ics_url_masked: masked, auto_join: false, bot_name: "Later bot" });
		const [only, ...more] = (await json<{ calendars: Connection[] }>(await call("GET", "/user/calendars", { headers }))).calendars;
		expect(more).toEqual([]);
		expect(only).toMatchObject({ ics_url_set: true, ics_url_masked: masked, auto_join: false, bot_name: "Later bot", enabled: true });
	});

	it("refuses a calendar page URL with 422 and disconnects on ics_url null", async () => {
		const { headers } = await userWithKey();
		const bad = await call("PUT", "/user/calendar", {
			headers,
			json: { ics_url: "https://calendar.google.com/calendar/embed?src=alice%40example.com", auto_join: true },
		});
		expect(bad.status).toBe(422);
		expect(JSON.stringify(await bad.json())).toContain("Secret address in iCal format");
		expect(await json(await call("GET", "/user/calendars", { headers }))).toEqual({ calendars: [] });

		await call("PUT", "/user/calendar", { headers, json: { ics_url: newFeed().url, auto_join: true } });
		const off = await call("PUT", "/user/calendar", { headers, json: { ics_url: null, auto_join: true } });
		expect(off.status).toBe(200);
		expect(await json(off)).toMatchObject({ ics_url_set: false, ics_url_masked: null });
		expect(await json(await call("GET", "/user/calendars", { headers }))).toEqual({ calendars: [] });
	});

	it("syncs every active connection, with aggregate counts and per-connection stamps; 404 with no feed", async () => {
		const { headers } = await userWithKey();
		expect((await call("POST", "/user/calendar/sync", { headers })).status).toBe(404);
		expect(await json(await call("GET", "/user/calendar/sync", { headers }))).toEqual({});
		const a = newFeed();
		const b = newFeed();
		await serveFeed(a, calendar(vevent({ UID: "a1@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "A1" })));
		await serveFeed(
			b,
			calendar(
				vevent({ UID: "b1@x", DTSTART: "{{D+2}}T110000Z", SUMMARY: "B1" }),
				vevent({ UID: "b2@x", DTSTART: "{{D+2}}T120000Z", SUMMARY: "B2" }),
			),
		);
		const first = await connect(headers, a, { name: "A" });
		const second = await connect(headers, b, { name: "B" });
		// Each planned its events when it was connected; the feeds have not changed since.
		expect(firstSync(first).counts).toEqual({ created: 1, updated: 0, cancelled: 0 });
		expect(firstSync(second).counts).toEqual({ created: 2, updated: 0, cancelled: 0 });
		await serveFeed(
			a,
			calendar(
				vevent({ UID: "a1@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "A1" }),
				vevent({ UID: "a2@x", DTSTART: "{{D+3}}T100000Z", SUMMARY: "A2" }),
			),
		);
		await serveFeed(b, calendar(vevent({ UID: "b1@x", DTSTART: "{{D+2}}T110000Z", SUMMARY: "B1" })));
		const res = await call("POST", "/user/calendar/sync", { headers });
		expect(res.status).toBe(200);
		const body = await json<{ last_sync: string; last_error: null; counts: object; calendars: { calendar_id: string; counts: object }[] }>(
			res,
		);
		expect(body.counts).toEqual({ created: 1, updated: 0, cancelled: 1 });
		expect(body.last_error).toBeNull();
		expect(body.calendars.map((s) => [s.calendar_id, s.counts])).toEqual([
			[first.id, { created: 1, updated: 0, cancelled: 0 }],
			[second.id, { created: 0, updated: 0, cancelled: 1 }],
		]);
		const aggregate = await json<Record<string, unknown>>(await call("GET", "/user/calendar/sync", { headers }));
		expect(aggregate).toEqual({ last_sync: body.last_sync, last_error: null, counts: body.counts });
	});
});
