import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { meetUrl } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";

/**
 * Where the spec names no scope, the gateway follows the reference's ROUTE_SCOPES
 * (docs/api.md#key-scopes): `tx` plans and edits meeting records, `bot` alone reaches the
 * calendars, whose auto-join sends bots.
 */

/** The 403 names the scope the route needs and the scopes the key has. */
const scopeDetail = (needed: string, route: string, has: string) => ({
	detail: `Token scope not authorized for this endpoint: this API key lacks the ${needed} scope needed for ${route}; it has: ${has}`,
});
const ICS_URL = "https://calendar.example.com/feed.ics";

describe("a tx key on the meeting-record plane", () => {
	it("plans, edits, annotates and deletes a meeting record", async () => {
		const { headers } = await userWithKey("tx");
		const code = meetCode();
		const planned = await call("POST", "/meetings", { headers, json: { title: "planning", meeting_url: meetUrl(code), auto_join: false } });
		expect(planned.status, await planned.clone().text()).toBe(201);
		const { id } = await json<{ id: number }>(planned);
		const edited = await call("PATCH", `/meetings/${id}`, { headers, json: { title: "renamed" } });
		expect(edited.status).toBe(200);
		expect(await json(edited)).toMatchObject({ id, data: expect.objectContaining({ title: "renamed" }) });
		const noted = await call("PATCH", `/meetings/google_meet/${code}`, { headers, json: { notes: "agenda" } });
		expect(noted.status, await noted.clone().text()).toBe(200);
		expect((await call("DELETE", `/meetings/${id}`, { headers })).status).toBe(204);
		expect((await call("GET", `/meetings/${id}`, { headers })).status).toBe(404);
	});

	it("still cannot send a bot", async () => {
		const { headers } = await userWithKey("tx");
		const res = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: meetCode() } });
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual(scopeDetail('"bot"', "POST /bots", "tx"));
	});
});

describe("calendars take bot", () => {
	const calendarCalls: [string, string, unknown?][] = [
		["GET", "/user/calendars"],
		["POST", "/user/calendars", { ics_url: ICS_URL, name: "work" }],
		["GET", "/user/calendar"],
		["PUT", "/user/calendar", { ics_url: ICS_URL }],
		["GET", "/user/calendar/sync"],
		["POST", "/user/calendar/sync"],
	];

	it("refuses every calendar route to a tx key (403), connecting nothing", async () => {
		const tx = await userWithKey("tx");
		const calls: [string, string, unknown?][] = [
			...calendarCalls,
			["PATCH", "/user/calendars/1", { enabled: true }],
			["DELETE", "/user/calendars/1"],
			["GET", "/user/calendars/1/sync"],
			["POST", "/user/calendars/1/sync"],
		];
		for (const [method, path, body] of calls) {
			const res = await call(method, path, { headers: tx.headers, ...(body ? { json: body } : {}) });
			expect(res.status, `${method} ${path}`).toBe(403);
			expect(await res.json()).toEqual(scopeDetail('"bot"', `${method} ${path}`, "tx"));
		}
		const stored = await env.DB.prepare("SELECT count(*) AS n FROM calendar_connections WHERE user_id = ?")
			.bind(tx.user.id)
			.first<number>("n");
		expect(stored).toBe(0);
	});

	it("lets a bot key connect and list a feed", async () => {
		const { headers } = await userWithKey("bot");
		const made = await call("POST", "/user/calendars", { headers, json: { ics_url: ICS_URL, name: "work" } });
		expect(made.status, await made.clone().text()).toBe(201);
		const listed = await json<{ calendars: { name: string }[] }>(await call("GET", "/user/calendars", { headers }));
		expect(listed.calendars.map((c) => c.name)).toEqual(["work"]);
	});
});
