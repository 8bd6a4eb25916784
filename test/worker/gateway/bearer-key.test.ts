import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { call, json, userWithKey } from "../support";

/**
 * REST takes the API key as `X-API-Key` or as `Authorization: Bearer <key>` (docs/api.md#conventions),
 * the form most HTTP clients send. Two different keys in one request are refused with 400, and no
 * answer or log line ever carries a key.
 */

const METHODS = ["log", "info", "warn", "error", "debug"] as const;
let logged: string[] = [];

beforeEach(() => {
	logged = [];
	for (const method of METHODS) {
		vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
			logged.push(args.map((a) => (a instanceof Error ? `${a.name} ${a.message}` : String(a))).join(" "));
		});
	}
});

afterEach(() => vi.restoreAllMocks());

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe("an API key as Authorization: Bearer", () => {
	it("authenticates REST routes like X-API-Key", async () => {
		const { key, user } = await userWithKey("bot,tx");
		const me = await call("GET", "/auth/me", { headers: bearer(key) });
		expect(me.status).toBe(200);
		expect(await json(me)).toMatchObject({ user_id: user.id });
		const meetings = await call("GET", "/meetings", { headers: bearer(key) });
		expect(meetings.status).toBe(200);
		expect(await json(meetings)).toEqual({ meetings: [] });
	});

	it("is checked for scope like X-API-Key, and the 403 names what the route needs", async () => {
		const { key } = await userWithKey("tx");
		const res = await call("POST", "/bots", { headers: bearer(key), json: { platform: "google_meet", native_meeting_id: "abc-defg-hij" } });
		expect(res.status).toBe(403);
		expect(await json(res)).toEqual({
			detail: 'Token scope not authorized for this endpoint: this API key lacks the "bot" scope needed for POST /bots; it has: tx',
		});
	});

	it("answers an unknown Bearer key with 401 Invalid API key, not Missing API key", async () => {
		const unknown = "vxa_bot_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
		const res = await call("GET", "/auth/me", { headers: bearer(unknown) });
		expect(res.status).toBe(401);
		const body = await res.text();
		expect(JSON.parse(body)).toEqual({ detail: "Invalid API key" });
		for (const text of [body, ...logged]) expect(text).not.toContain(unknown);
	});

	it("accepts both headers when they carry the same key", async () => {
		const { key } = await userWithKey();
		const res = await call("GET", "/auth/me", { headers: { "X-API-Key": key, ...bearer(key) } });
		expect(res.status).toBe(200);
	});

	it("refuses two different keys with 400, naming the headers and neither key", async () => {
		const mine = await userWithKey();
		const theirs = await userWithKey();
		const res = await call("GET", "/auth/me", { headers: { "X-API-Key": mine.key, ...bearer(theirs.key) } });
		expect(res.status).toBe(400);
		const body = await res.text();
		expect(JSON.parse(body)).toEqual({
			detail: "X-API-Key and Authorization: Bearer carry different keys; send one key, in either header",
		});
		for (const text of [body, ...logged]) {
			expect(text).not.toContain(mine.key);
			expect(text).not.toContain(theirs.key);
		}
	});

	it("still answers Missing API key for an Authorization header that is not a Bearer token", async () => {
		const { key } = await userWithKey();
		const res = await call("GET", "/auth/me", { headers: { Authorization: `Basic ${btoa(`x:${key}`)}` } });
		expect(res.status).toBe(401);
		expect(await json(res)).toEqual({ detail: "Missing API key" });
	});
});
