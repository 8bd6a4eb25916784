import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, call, createUser, json, mintKey } from "../support";

interface User {
	id: number;
	email: string;
	name: string | null;
	max_concurrent_bots: number;
	data: Record<string, unknown>;
}
interface Minted {
	id: number;
	token: string;
	user_id: number;
	scopes: string[];
	name: string | null;
	created_at: string;
	expires_at: string | null;
}

describe("admin token", () => {
	it.each([
		["missing", {}],
		["wrong", { "X-Admin-API-Key": "not-the-admin-token" }],
		["a user API key", { "X-API-Key": "vxa_bot_whatever" }],
	])("refuses a %s admin token with 403", async (_label, headers) => {
		const res = await call("POST", "/admin/users", { headers, json: { email: "nobody@example.com" } });
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ detail: "Invalid or missing admin token." });
		const check = await call("GET", "/admin/users/email/nobody@example.com", { headers: ADMIN });
		expect(check.status).toBe(404);
	});
});

describe("users", () => {
	it("creates a user with the default cap of 3, and returns the same user for a known email with 200", async () => {
		const email = `Someone-${crypto.randomUUID()}@Example.com`;
		const created = await call("POST", "/admin/users", { headers: ADMIN, json: { email, name: "Some One" } });
		expect(created.status).toBe(201);
		const user = await json<User>(created);
		expect(user).toMatchObject({ email: email.toLowerCase(), name: "Some One", max_concurrent_bots: 3, data: {} });

		const again = await call("POST", "/admin/users", { headers: ADMIN, json: { email, max_concurrent_bots: 9 } });
		expect(again.status).toBe(200);
		expect((await json<User>(again)).id).toBe(user.id);
		expect((await json<User>(await call("GET", `/admin/users/${user.id}`, { headers: ADMIN }))).max_concurrent_bots).toBe(3);
	});

	it("reads a user by id and by email, and answers 404 User not found otherwise", async () => {
		const user = await createUser();
		expect((await json<User>(await call("GET", `/admin/users/${user.id}`, { headers: ADMIN }))).email).toBe(user.email);
		expect((await json<User>(await call("GET", `/admin/users/email/${encodeURIComponent(user.email)}`, { headers: ADMIN }))).id).toBe(
			user.id,
		);
		for (const path of ["/admin/users/999999", "/admin/users/email/missing@example.com"]) {
			const res = await call("GET", path, { headers: ADMIN });
			expect(res.status).toBe(404);
			expect(await res.json()).toEqual({ detail: "User not found" });
		}
	});

	it("refuses an invalid email with a 422 field error and creates nothing", async () => {
		const res = await call("POST", "/admin/users", { headers: ADMIN, json: { email: "not-an-email" } });
		expect(res.status).toBe(422);
		const body = await json<{ detail: { loc: string[]; msg: string }[] }>(res);
		expect(body.detail[0]?.loc).toEqual(["body", "email"]);
		expect((await call("GET", "/admin/users/email/not-an-email", { headers: ADMIN })).status).toBe(404);
	});

	it("patches max_concurrent_bots and merges data", async () => {
		const user = await createUser();
		const first = await call("PATCH", `/admin/users/${user.id}`, { headers: ADMIN, json: { data: { plan: "pro" } } });
		expect(first.status).toBe(200);
		const res = await call("PATCH", `/admin/users/${user.id}`, { headers: ADMIN, json: { max_concurrent_bots: 0, data: { seats: 4 } } });
		expect(res.status).toBe(200);
		expect(await json<User>(res)).toMatchObject({ max_concurrent_bots: 0, data: { plan: "pro", seats: 4 } });
	});

	it.each([
		["no field", {}],
		["an unknown field", { max_concurrent_bots: 2, email: "x@example.com" }],
		["a wrong type", { max_concurrent_bots: "five" }],
		["a negative cap", { max_concurrent_bots: -1 }],
	])("refuses a patch with %s (422) and changes nothing", async (_label, body) => {
		const user = await createUser();
		const res = await call("PATCH", `/admin/users/${user.id}`, { headers: ADMIN, json: body });
		expect(res.status).toBe(422);
		expect(Array.isArray((await json<{ detail: unknown }>(res)).detail)).toBe(true);
		expect((await json<User>(await call("GET", `/admin/users/${user.id}`, { headers: ADMIN }))).max_concurrent_bots).toBe(3);
	});

	it("answers 404 when patching an unknown user", async () => {
		const res = await call("PATCH", "/admin/users/987654", { headers: ADMIN, json: { max_concurrent_bots: 1 } });
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ detail: "User not found" });
	});
});

describe("keys", () => {
	it("mints with ?scopes=, in the vxa_<first scope>_<random> format, shown once", async () => {
		const user = await createUser();
		const res = await call("POST", `/admin/users/${user.id}/tokens?scopes=tx,bot`, { headers: ADMIN });
		expect(res.status).toBe(201);
		const minted = await json<Minted>(res);
		expect(minted.token).toMatch(/^vxa_tx_[A-Za-z0-9_-]{43,}$/);
		expect(minted).toMatchObject({ user_id: user.id, scopes: ["bot", "tx"], name: null, expires_at: null });

		const listed = await call("GET", `/admin/users/${user.id}/tokens`, { headers: ADMIN });
		const text = await listed.text();
		expect(text).not.toContain(minted.token);
		expect(JSON.parse(text)).toEqual([expect.objectContaining({ id: minted.id, scopes: ["bot", "tx"] })]);
		expect(JSON.parse(text)[0]).not.toHaveProperty("token");
	});

	it("takes ?scope= as well, and a JSON body wins over the query", async () => {
		const user = await createUser();
		const single = await json<Minted>(await call("POST", `/admin/users/${user.id}/tokens?scope=browser`, { headers: ADMIN }));
		expect(single.scopes).toEqual(["browser"]);
		const res = await call("POST", `/admin/users/${user.id}/tokens?scopes=browser`, {
			headers: ADMIN,
			json: { scopes: ["bot"], name: "ci", expires_in: 3600 },
		});
		expect(res.status).toBe(201);
		const minted = await json<Minted>(res);
		expect(minted.scopes).toEqual(["bot"]);
		expect(minted.name).toBe("ci");
		expect(Date.parse(minted.expires_at ?? "") - Date.parse(minted.created_at)).toBe(3_600_000);
	});

	it("refuses an invalid scope with the exact detail existing tooling matches", async () => {
		const user = await createUser();
		const res = await call("POST", `/admin/users/${user.id}/tokens?scopes=bot,foo`, { headers: ADMIN });
		expect(res.status).toBe(422);
		expect(await res.json()).toEqual({ detail: "Invalid scope(s): ['foo']. Valid: ['bot', 'browser', 'tx']" });
		expect(await (await call("GET", `/admin/users/${user.id}/tokens`, { headers: ADMIN })).json()).toEqual([]);
	});

	it("answers 404 when minting for or listing an unknown user", async () => {
		expect((await call("POST", "/admin/users/424242/tokens?scopes=bot", { headers: ADMIN })).status).toBe(404);
		expect((await call("GET", "/admin/users/424242/tokens", { headers: ADMIN })).status).toBe(404);
	});

	it("stores keys only as SHA-256 hashes", async () => {
		const user = await createUser();
		const key = await mintKey(user.id);
		const rows = await env.DB.prepare("SELECT * FROM api_tokens WHERE user_id = ?").bind(user.id).all();
		const stored = JSON.stringify(rows.results);
		expect(stored).not.toContain(key);
		expect(stored).not.toContain(key.slice(8, 30));
		const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
		const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
		expect(rows.results[0]?.token_hash).toBe(hex);
	});

	it("revokes with 204, after which the key stops working at once", async () => {
		const user = await createUser();
		const key = await mintKey(user.id);
		expect((await call("GET", "/auth/me", { headers: { "X-API-Key": key } })).status).toBe(200);
		const [meta] = await json<Minted[]>(await call("GET", `/admin/users/${user.id}/tokens`, { headers: ADMIN }));
		const del = await call("DELETE", `/admin/tokens/${meta?.id}`, { headers: ADMIN });
		expect(del.status).toBe(204);
		expect(await del.text()).toBe("");
		const after = await call("GET", "/auth/me", { headers: { "X-API-Key": key } });
		expect(after.status).toBe(401);
		expect(await after.json()).toEqual({ detail: "Invalid API key" });
		expect((await call("DELETE", `/admin/tokens/${meta?.id}`, { headers: ADMIN })).status).toBe(404);
	});
});

describe("key minting without a body", () => {
	it("treats an empty body sent with a JSON content type as no body", async () => {
		const user = await createUser();
		const res = await call("POST", `/admin/users/${user.id}/tokens?scopes=tx`, {
			headers: { ...ADMIN, "content-type": "application/json", "content-length": "0" },
			body: "",
		});
		expect(res.status).toBe(201);
		expect((await json<Minted>(res)).scopes).toEqual(["tx"]);
	});
});

describe("admin changes reach the gateway at once", () => {
	it("shows a new cap on the next request of an already-used key", async () => {
		const user = await createUser();
		const key = await mintKey(user.id);
		const me = async () => json<{ max_concurrent: number }>(await call("GET", "/auth/me", { headers: { "X-API-Key": key } }));
		expect((await me()).max_concurrent).toBe(3);
		await call("PATCH", `/admin/users/${user.id}`, { headers: ADMIN, json: { max_concurrent_bots: 7 } });
		expect((await me()).max_concurrent).toBe(7);
	});
});
