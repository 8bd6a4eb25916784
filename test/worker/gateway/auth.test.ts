import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import type { Env } from "../../../src/env";
import { ROUTE_ACCESS } from "../../../src/gateway/route-scopes";
import worker from "../../../src/index";
import { until } from "../../shared/wait";
import { ADMIN, call, json, userWithKey } from "../support";

/** Calls the Worker with a modified deployment environment. */
async function callWith(overrides: Partial<Env>, path: string, headers: Record<string, string> = {}) {
	const ctx = createExecutionContext();
	const res = await worker.fetch(new Request(`https://gateway.test${path}`, { headers }), { ...env, ...overrides } as Env, ctx);
	await waitOnExecutionContext(ctx);
	return res;
}

const samplePath = (path: string) => path.replace(/:[a-z_]+/g, "1");

describe("API key authentication", () => {
	it("answers 401 Missing API key without a key", async () => {
		const res = await call("GET", "/auth/me");
		expect(res.status).toBe(401);
		expect(await res.json()).toEqual({ detail: "Missing API key" });
	});

	it("answers 401 Invalid API key for an unknown key", async () => {
		const res = await call("GET", "/auth/me", { headers: { "X-API-Key": "vxa_bot_unknown" } });
		expect(res.status).toBe(401);
		expect(await res.json()).toEqual({ detail: "Invalid API key" });
	});

	it("answers 401 once a key has expired", async () => {
		const { user } = await userWithKey();
		const minted = await call("POST", `/admin/users/${user.id}/tokens`, { headers: ADMIN, json: { scopes: ["bot"], expires_in: 1 } });
		const { token: key, expires_at } = await json<{ token: string; expires_at: string }>(minted);
		expect((await call("GET", "/auth/me", { headers: { "X-API-Key": key } })).status).toBe(200);
		await until("the key's expiry to pass", () => Date.now() > Date.parse(expires_at));
		const res = await call("GET", "/auth/me", { headers: { "X-API-Key": key } });
		expect(res.status).toBe(401);
		expect(await res.json()).toEqual({ detail: "Invalid API key" });
	});

	it("answers 503 with Retry-After, never 401, when the identity store cannot answer", async () => {
		const unreachable = {
			prepare: () => ({
				bind: () => ({
					first: () => Promise.reject(new Error("D1_ERROR: Network connection lost")),
				}),
			}),
		} as unknown as D1Database;
		const res = await callWith({ DB: unreachable }, "/auth/me", { "X-API-Key": "vxa_bot_anything" });
		expect(res.status).toBe(503);
		expect(res.headers.get("Retry-After")).toMatch(/^\d+$/);
		expect((await json<{ detail: string }>(res)).detail).toMatch(/unavailable/i);
	});

	it("returns the caller's identity from the key, ignoring a client-sent X-User-Id", async () => {
		const me = await userWithKey("bot,tx", { max_concurrent_bots: 5 });
		const other = await userWithKey();
		const res = await call("GET", "/auth/me", { headers: { ...me.headers, "X-User-Id": String(other.user.id) } });
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ user_id: me.user.id, email: me.user.email, scopes: ["bot", "tx"], max_concurrent: 5 });
	});
});

describe("the route-to-scope table", () => {
	it("covers every mounted route, so nothing mounted is reachable by accident", () => {
		const table = new Set(ROUTE_ACCESS.map(([method, path]) => `${method} ${path}`));
		const mounted = app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`);
		expect(mounted.length).toBeGreaterThan(10);
		for (const route of mounted) expect(table, route).toContain(route);
	});

	it("lets a browser-only key reach GET /auth/me and nothing else", async () => {
		const { headers } = await userWithKey("browser");
		expect((await call("GET", "/auth/me", { headers })).status).toBe(200);
		for (const [method, path, access] of ROUTE_ACCESS) {
			if (access.kind !== "key" || path === "/auth/me") continue;
			const res = await call(method, samplePath(path), { headers, json: method === "GET" ? undefined : {} });
			expect(res.status, `${method} ${path}`).toBe(403);
			const needed = access.scopes.map((s) => `"${s}"`).join(" or ");
			expect(await res.json()).toEqual({
				detail: `Token scope not authorized for this endpoint: this API key lacks the ${needed} scope needed for ${method} ${samplePath(path)}; it has: browser`,
			});
		}
	});

	it("asks for a key on every key route", async () => {
		for (const [method, path, access] of ROUTE_ACCESS) {
			if (access.kind !== "key") continue;
			const res = await call(method, samplePath(path));
			expect(res.status, `${method} ${path}`).toBe(401);
		}
	});

	it.each(["bot", "tx"])("lets a %s-only key reach the settings routes", async (scope) => {
		const { headers } = await userWithKey(scope);
		for (const path of ["/user/models", "/user/transcription", "/user/webhook", "/user/webhook/deliveries"]) {
			expect((await call("GET", path, { headers })).status, path).toBe(200);
		}
	});

	it("answers 404 for unknown routes, and for a known path under a method it does not mount (no 405)", async () => {
		const { headers } = await userWithKey();
		const unknown = await call("GET", "/no/such/route", { headers });
		expect(unknown.status).toBe(404);
		expect(await unknown.json()).toEqual({ detail: "Not Found" });
		// docs/api.md#errors: a route that is not mounted answers 404, whatever its method.
		for (const [method, path] of [
			["DELETE", "/user/models"],
			["GET", "/bots/google_meet/abc-defg-hij"],
			["PATCH", "/bots/status"],
			["POST", "/transcripts/google_meet/abc-defg-hij"],
		] as const) {
			const res = await call(method, path, { headers });
			expect(res.status, `${method} ${path}`).toBe(404);
			expect(res.headers.get("Allow"), `${method} ${path}`).toBeNull();
			expect(await res.json()).toEqual({ detail: "Not Found" });
		}
	});
});

describe("malformed requests", () => {
	it("answers 400 for malformed JSON and changes nothing", async () => {
		const { headers } = await userWithKey();
		const res = await call("PUT", "/user/models", {
			headers: { ...headers, "content-type": "application/json" },
			body: '{"model": "gpt',
		});
		expect(res.status).toBe(400);
		expect(typeof (await json<{ detail: unknown }>(res)).detail).toBe("string");
		expect((await json<{ model: unknown }>(await call("GET", "/user/models", { headers }))).model).toBeNull();
	});

	it("answers 415 for a body that is not JSON", async () => {
		const { headers } = await userWithKey();
		const res = await call("PUT", "/user/models", { headers: { ...headers, "content-type": "text/plain" }, body: "model=x" });
		expect(res.status).toBe(415);
	});

	it("answers 413 for an oversized body", async () => {
		const { headers } = await userWithKey();
		const res = await call("PUT", "/user/models", { headers, json: { model: "x".repeat(1_100_000) } });
		expect(res.status).toBe(413);
		expect(await res.json()).toEqual({ detail: "Request body too large" });
	});

	it("answers 422 with field errors for wrong types", async () => {
		const { headers } = await userWithKey();
		const res = await call("PUT", "/user/models", { headers, json: { model: 42 } });
		expect(res.status).toBe(422);
		const { detail } = await json<{ detail: { loc: (string | number)[]; msg: string; type: string }[] }>(res);
		expect(detail[0]).toMatchObject({ loc: ["body", "model"], type: expect.any(String), msg: expect.any(String) });
	});
});

describe("rate limits", () => {
	it("admits exactly the burst when many requests from one user arrive at once", async () => {
		const { headers } = await userWithKey();
		const limits = { GATEWAY_RATE_LIMIT_RPS: "0.001", GATEWAY_RATE_LIMIT_BURST: "7" };
		const results = await Promise.all(Array.from({ length: 30 }, () => callWith(limits, "/auth/me", headers)));
		const statuses = results.map((r) => r.status);
		expect(statuses.filter((s) => s === 200)).toHaveLength(7);
		expect(statuses.filter((s) => s === 429)).toHaveLength(23);
		const refused = results.find((r) => r.status === 429);
		expect(Number(refused?.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
		expect(await refused?.json()).toEqual({ detail: "Rate limit exceeded" });
	});

	it("keeps one user's bucket apart from another's", async () => {
		const a = await userWithKey();
		const b = await userWithKey();
		const limits = { GATEWAY_RATE_LIMIT_RPS: "0.001", GATEWAY_RATE_LIMIT_BURST: "2" };
		for (let i = 0; i < 3; i++) await callWith(limits, "/auth/me", a.headers);
		expect((await callWith(limits, "/auth/me", a.headers)).status).toBe(429);
		expect((await callWith(limits, "/auth/me", b.headers)).status).toBe(200);
	});

	it("guards per IP before the key check when enabled, then bans a repeat offender", async () => {
		const guard = { GUARD_ENABLED: "true", GUARD_RATE_LIMIT_RPM: "3", GUARD_BAN_SECONDS: "900" };
		const ip = { "CF-Connecting-IP": `203.0.113.${Math.floor(Math.random() * 250)}` };
		const statuses: number[] = [];
		for (let i = 0; i < 4; i++) statuses.push((await callWith(guard, "/auth/me", ip)).status);
		expect(statuses).toEqual([401, 401, 401, 429]);
		let last: Response | undefined;
		for (let i = 0; i < 10; i++) last = await callWith(guard, "/health", ip);
		expect(last?.status).toBe(429);
		expect(Number(last?.headers.get("Retry-After"))).toBeGreaterThan(800);
		const otherIp = await callWith(guard, "/health", { "CF-Connecting-IP": "198.51.100.7" });
		expect(otherIp.status).toBe(200);
	});

	it("reads the caller's address from CF-Connecting-IP only: an X-Real-IP the client sent is not trusted", async () => {
		const guard = { GUARD_ENABLED: "true", GUARD_RATE_LIMIT_RPM: "3", GUARD_BAN_SECONDS: "900" };
		// Off Cloudflare nothing sets CF-Connecting-IP; a client rotating X-Real-IP must still share one bucket.
		const statuses: number[] = [];
		for (let i = 0; i < 4; i++) statuses.push((await callWith(guard, "/health", { "X-Real-IP": `198.51.100.${10 + i}` })).status);
		expect(statuses).toEqual([200, 200, 200, 429]);
	});

	it("reads X-Real-IP instead when CLIENT_IP_HEADER says a trusted proxy sets it, and then ignores CF-Connecting-IP", async () => {
		const guard = { GUARD_ENABLED: "true", GUARD_RATE_LIMIT_RPM: "3", GUARD_BAN_SECONDS: "900", CLIENT_IP_HEADER: "X-Real-IP" };
		const proxied = `192.0.2.${Math.floor(Math.random() * 250)}`;
		const statuses: number[] = [];
		for (let i = 0; i < 4; i++) {
			statuses.push((await callWith(guard, "/health", { "X-Real-IP": proxied, "CF-Connecting-IP": `203.0.113.${10 + i}` })).status);
		}
		expect(statuses).toEqual([200, 200, 200, 429]);
		const otherClient = await callWith(guard, "/health", { "X-Real-IP": "198.51.100.200" });
		expect(otherClient.status).toBe(200);
	});

	it("limits anonymous /public/* reads per IP with the guard off (PUBLIC_RATE_LIMIT_RPM), apart from keyed routes", async () => {
		const limits = { PUBLIC_RATE_LIMIT_RPM: "3" };
		const ip = { "CF-Connecting-IP": `203.0.113.${Math.floor(Math.random() * 250)}` };
		// An unknown share is 404 until the window is spent: the limit comes before any lookup.
		const statuses: number[] = [];
		for (let i = 0; i < 4; i++) statuses.push((await callWith(limits, "/public/transcripts/AAAAAAAAAAAAAAAA.txt", ip)).status);
		expect(statuses).toEqual([404, 404, 404, 429]);
		const refused = await callWith(limits, "/public/screenshots/1/1/a.jpg", ip);
		expect(refused.status).toBe(429);
		expect(await refused.json()).toEqual({ detail: "Rate limit exceeded" });
		// Other addresses, and the same address's other routes, are not held by it.
		expect((await callWith(limits, "/public/transcripts/AAAAAAAAAAAAAAAA.txt", { "CF-Connecting-IP": "198.51.100.9" })).status).toBe(404);
		expect((await callWith(limits, "/health", ip)).status).toBe(200);
	});

	it("leaves the per-IP guard off by default", async () => {
		const ip = { "CF-Connecting-IP": "192.0.2.55" };
		const results = await Promise.all(Array.from({ length: 20 }, () => call("GET", "/health", { headers: ip })));
		expect(results.every((r) => r.status === 200)).toBe(true);
	});
});
