import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fetchFeed } from "../../../src/calendars/feed-fetch";
import { call, json, userWithKey } from "../support";
import { calendar, connect, newFeed, serveFeed, tick, vevent } from "./feeds";

const connectionRow = (id: string) =>
	env.DB.prepare("SELECT last_sync_at, next_sync_at, last_counts FROM calendar_connections WHERE id = ?")
		.bind(id)
		.first<{ last_sync_at: string | null; next_sync_at: string; last_counts: string | null }>();

describe("background calendar sync", () => {
	it("syncs enabled connections again once they are due, from the scheduled handler, and sets the next time one interval on", async () => {
		const { headers } = await userWithKey();
		const feedOn = newFeed();
		const feedOff = newFeed();
		await serveFeed(feedOn, calendar(vevent({ UID: "bg-1@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "Background" })));
		await serveFeed(feedOff, calendar(vevent({ UID: "bg-2@x", DTSTART: "{{D+2}}T110000Z", SUMMARY: "Disabled" })));
		const on = await connect(headers, feedOn, { name: "On" });
		const off = await connect(headers, feedOff, { name: "Off" });
		await call("PATCH", `/user/calendars/${off.id}`, { headers, json: { enabled: false } });

		// Synced at once when connected; the first background sync is due one interval (300 s, give or take a tenth) on.
		const first = await connectionRow(on.id);
		const offFirst = (await connectionRow(off.id))?.last_sync_at;
		expect(first?.last_sync_at).not.toBeNull();
		expect(offFirst).not.toBeNull();
		const due = Date.parse(first?.next_sync_at ?? "");
		expect(due).toBeGreaterThanOrEqual(Date.now() + 270_000 - 5_000);
		expect(due).toBeLessThanOrEqual(Date.now() + 330_000);
		await tick(due - 1_000);
		expect((await connectionRow(on.id))?.last_sync_at).toBe(first?.last_sync_at);

		await serveFeed(
			feedOn,
			calendar(
				vevent({ UID: "bg-1@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "Background" }),
				vevent({ UID: "bg-3@x", DTSTART: "{{D+3}}T100000Z", SUMMARY: "Background later" }),
			),
		);
		const at = Date.now() + 331_000;
		await tick(at);
		const synced = await connectionRow(on.id);
		expect(synced?.last_sync_at).toBe(new Date(at).toISOString().replace("Z", "+00:00"));
		expect(JSON.parse(synced?.last_counts ?? "{}")).toEqual({ created: 1, updated: 0, cancelled: 0 });
		const next = Date.parse(synced?.next_sync_at ?? "");
		expect(next).toBeGreaterThanOrEqual(at + 270_000);
		expect(next).toBeLessThanOrEqual(at + 330_000);
		// The disabled one keeps the plan of its first sync, and is not synced again.
		expect((await connectionRow(off.id))?.last_sync_at).toBe(offFirst);
		const titles = (await json<{ meetings: { data: { title: string } }[] }>(await call("GET", "/meetings", { headers }))).meetings.map(
			(m) => m.data.title,
		);
		expect(titles.sort()).toEqual(["Background", "Background later", "Disabled"]);
		expect(await json(await call("GET", `/user/calendars/${on.id}/sync`, { headers }))).toMatchObject({
			calendar_id: on.id,
			last_error: null,
		});

		// The same tick again finds nothing due.
		await tick(at);
		expect((await connectionRow(on.id))?.last_sync_at).toBe(synced?.last_sync_at);
	});

	it("does nothing in the background when calendar sync is unwired", async () => {
		const { headers } = await userWithKey();
		const feed = newFeed();
		await serveFeed(feed, calendar(vevent({ UID: "quiet@x", DTSTART: "{{D+2}}T100000Z", SUMMARY: "Quiet" })));
		const cal = await connect(headers, feed);
		const connected = (await connectionRow(cal.id))?.last_sync_at;
		await tick(Date.now() + 400_000, { CALENDAR_SYNC_ENABLED: "false" });
		expect((await connectionRow(cal.id))?.last_sync_at).toBe(connected);
	});

	it("spreads the first syncs of connections created together over the interval", async () => {
		const { headers } = await userWithKey();
		const made = [];
		for (let i = 0; i < 8; i++) made.push(await connect(headers, newFeed(), { name: `Spread ${i}` }));
		const due = await Promise.all(made.map(async (c) => Date.parse((await connectionRow(c.id))?.next_sync_at ?? "")));
		expect(new Set(due).size).toBe(8);
		expect(Math.max(...due) - Math.min(...due)).toBeGreaterThan(10_000);
	});
});

describe("feed fetch limits", () => {
	it("stops reading a feed past the size limit and refuses private targets when the deployment does not allow them", async () => {
		const feed = newFeed();
		await serveFeed(feed, "x".repeat(300_000));
		const big = await fetchFeed(feed.url, { allowPrivate: true }, { maxBytes: 100_000, timeoutMs: 5_000 });
		expect(big).toEqual({ ok: false, error: "The calendar feed is larger than 98 KB" });
		const refused = await fetchFeed(feed.url, { allowPrivate: false }, { maxBytes: 100_000, timeoutMs: 5_000 });
		expect(refused).toEqual({ ok: false, error: "The calendar feed address is not allowed (loopback)" });
		const fine = await fetchFeed(feed.url, { allowPrivate: true }, { maxBytes: 400_000, timeoutMs: 5_000 });
		expect(fine.ok && fine.text.length).toBe(300_000);
	});

	it("gives up on a feed that does not answer in time", async () => {
		const path = `/feeds/slow-${crypto.randomUUID()}`;
		await fetch(`${env.WEBHOOK_RECEIVER_URL}/__control/script?path=${encodeURIComponent(path)}`, {
			method: "POST",
			body: JSON.stringify({ responses: [{ status: 200, delay_ms: 3_000, body: "BEGIN:VCALENDAR" }] }),
		});
		const slow = await fetchFeed(`${env.WEBHOOK_RECEIVER_URL}${path}`, { allowPrivate: true }, { maxBytes: 1_000, timeoutMs: 500 });
		expect(slow).toEqual({ ok: false, error: "The calendar feed did not answer within 1 s" });
	});
});
