import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { meetCode } from "../../shared/meetings";
import { eventually, until } from "../../shared/wait";
import { openSocket } from "../meetings/bot-sim";
import { createPlan, meetUrl } from "../meetings/helpers";
import { call, createUser, json, mintKey, userWithKey } from "../support";

/** A user's own API keys: GET/POST /auth/keys, DELETE /auth/keys/{key_id} (docs/api.md#your-own-api-keys). */

interface ApiKey {
	id: number;
	name: string | null;
	scopes: string[];
	key_hint: string | null;
	created_at: string;
	expires_at: string | null;
	current: boolean;
	minted_by: number | null;
}
type Minted = ApiKey & { token: string };

const as = (key: string) => ({ "X-API-Key": key });

async function list(key: string): Promise<ApiKey[]> {
	const res = await call("GET", "/auth/keys", { headers: as(key) });
	expect(res.status, await res.clone().text()).toBe(200);
	return (await json<{ keys: ApiKey[] }>(res)).keys;
}

async function mint(key: string, body?: Record<string, unknown>): Promise<Minted> {
	const res = await call("POST", "/auth/keys", { headers: as(key), ...(body ? { json: body } : {}) });
	expect(res.status, await res.clone().text()).toBe(201);
	return json<Minted>(res);
}

const meStatus = async (key: string) => (await call("GET", "/auth/me", { headers: as(key) })).status;

async function sha256Hex(text: string): Promise<string> {
	const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
	return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The rows D1 holds for a user, to check that a refused request stored nothing. */
const storedKeys = async (userId: number) =>
	(await env.DB.prepare("SELECT id FROM api_tokens WHERE user_id = ?").bind(userId).all()).results.length;

describe("listing your own keys", () => {
	it("shows each key masked, marks the calling one, and never shows a key or its hash", async () => {
		const { user, key } = await userWithKey("bot,tx");
		const other = await mintKey(user.id, "tx");
		const res = await call("GET", "/auth/keys", { headers: as(key) });
		expect(res.status).toBe(200);
		const text = await res.text();
		for (const secret of [key, other, await sha256Hex(key), await sha256Hex(other), key.slice(8, 30)]) expect(text).not.toContain(secret);
		const { keys } = JSON.parse(text) as { keys: ApiKey[] };
		expect(keys).toEqual([
			expect.objectContaining({
				scopes: ["tx"],
				key_hint: `****${other.slice(-4)}`,
				current: false,
				name: null,
				expires_at: null,
				minted_by: null,
			}),
			expect.objectContaining({ scopes: ["bot", "tx"], key_hint: `****${key.slice(-4)}`, current: true }),
		]);
		for (const k of keys)
			expect(Object.keys(k).sort()).toEqual(["created_at", "current", "expires_at", "id", "key_hint", "minted_by", "name", "scopes"]);
		// The other key sees the same list, with itself as the current one.
		expect((await list(other)).map((k) => k.current)).toEqual([true, false]);
	});

	it("shows no hint for a key minted before hints were kept", async () => {
		const { user, key } = await userWithKey();
		await env.DB.prepare("UPDATE api_tokens SET key_hint = NULL WHERE user_id = ?").bind(user.id).run();
		expect((await list(key))[0]?.key_hint).toBeNull();
	});

	it("lists only the caller's own keys", async () => {
		const mine = await userWithKey();
		const theirs = await userWithKey();
		const ids = (await list(mine.key)).map((k) => k.id);
		expect(ids).toHaveLength(1);
		expect(ids).not.toContain((await list(theirs.key))[0]?.id);
	});

	it("refuses a browser-only key (403) and no key (401)", async () => {
		const { key } = await userWithKey("browser");
		const res = await call("GET", "/auth/keys", { headers: as(key) });
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({
			detail:
				'Token scope not authorized for this endpoint: this API key lacks the "bot" or "tx" scope needed for GET /auth/keys; it has: browser',
		});
		expect((await call("POST", "/auth/keys", { headers: as(key), json: { scopes: ["browser"] } })).status).toBe(403);
		expect((await call("GET", "/auth/keys")).status).toBe(401);
	});
});

describe("minting your own key", () => {
	it("gives the caller's scopes and 90 days by default, shows the key once, and the key works", async () => {
		const { user, key } = await userWithKey("bot,tx");
		const [caller] = await list(key);
		const minted = await mint(key);
		expect(minted).toMatchObject({ scopes: ["bot", "tx"], name: null, current: false, minted_by: caller?.id });
		expect(Date.parse(minted.expires_at ?? "") - Date.parse(minted.created_at)).toBe(90 * 86_400_000);
		expect(minted.token).toMatch(/^vxa_bot_[A-Za-z0-9_-]{43}$/);
		expect(minted.key_hint).toBe(`****${minted.token.slice(-4)}`);
		const me = await call("GET", "/auth/me", { headers: as(minted.token) });
		expect(await json(me)).toMatchObject({ user_id: user.id, scopes: ["bot", "tx"] });
		// Shown once: the list has the key's hint, never the key.
		const listed = await call("GET", "/auth/keys", { headers: as(key) });
		expect(await listed.text()).not.toContain(minted.token);
		const stored = await env.DB.prepare("SELECT token_hash FROM api_tokens WHERE id = ?").bind(minted.id).first<string>("token_hash");
		expect(stored).toBe(await sha256Hex(minted.token));
	});

	it("mints a subset of the caller's scopes, named, with the scope prefix the admin's keys have", async () => {
		const { key } = await userWithKey("bot,tx");
		const minted = await mint(key, { scopes: ["tx"], name: "  read-only export  " });
		expect(minted).toMatchObject({ scopes: ["tx"], name: "read-only export" });
		expect(minted.token).toMatch(/^vxa_tx_/);
		expect((await call("GET", "/meetings", { headers: as(minted.token) })).status).toBe(200);
		// A tx key cannot send a bot: the subset is what it holds.
		expect((await call("GET", "/bots/status", { headers: as(minted.token) })).status).toBe(403);
	});

	it.each([
		["a scope the key lacks", "tx", ["bot"], "this one lacks bot"],
		["a wider set", "tx", ["tx", "bot"], "this one lacks bot"],
		["browser from a bot key", "bot", ["browser"], "this one lacks browser"],
	])("refuses %s with 403 and a clear detail, storing nothing", async (_label, held, asked, lacking) => {
		const { user, key } = await userWithKey(held);
		const res = await call("POST", "/auth/keys", { headers: as(key), json: { scopes: asked } });
		expect(res.status).toBe(403);
		const { detail } = await json<{ detail: string }>(res);
		expect(detail).toContain("A key can mint keys only with its own scopes");
		expect(detail).toContain(lacking);
		expect(await storedKeys(user.id)).toBe(1);
	});

	it("lets a minted key mint no more than it holds", async () => {
		const { key } = await userWithKey("bot,tx");
		const narrow = await mint(key, { scopes: "tx" });
		expect((await call("POST", "/auth/keys", { headers: as(narrow.token), json: { scopes: ["bot"] } })).status).toBe(403);
		expect((await mint(narrow.token)).scopes).toEqual(["tx"]);
	});

	it.each([
		["an unknown scope", { scopes: ["bot", "admin"] }, "Invalid scope(s): ['admin']. Valid: ['bot', 'browser', 'tx']"],
		["no scope", { scopes: [] }, "Invalid scope(s): ['']. Valid: ['bot', 'browser', 'tx']"],
		["an empty name", { name: "   " }, ["body", "name"]],
		["a name too long", { name: "n".repeat(101) }, ["body", "name"]],
		["a name with a control character", { name: "ok\u0007" }, ["body", "name"]],
		["an expiry in the past", { expires_at: "2020-01-01T00:00:00Z" }, ["body", "expires_at"]],
		["an expiry past a year", { expires_at: new Date(Date.now() + 400 * 86_400_000).toISOString() }, ["body", "expires_at"]],
		["an expiry that is not a time", { expires_at: "tomorrow" }, ["body", "expires_at"]],
		["zero days", { expires_in_days: 0 }, ["body", "expires_in_days"]],
		["more than 365 days", { expires_in_days: 366 }, ["body", "expires_in_days"]],
		["both expiries", { expires_in_days: 3, expires_at: new Date(Date.now() + 86_400_000).toISOString() }, ["body", "expires_in_days"]],
		["the admin's expires_in", { expires_in: 3600 }, ["body"]],
	])("refuses %s with 422, storing nothing", async (_label, body, expected) => {
		const { user, key } = await userWithKey("bot,tx");
		const res = await call("POST", "/auth/keys", { headers: as(key), json: body });
		expect(res.status).toBe(422);
		const { detail } = await json<{ detail: string | { loc: (string | number)[] }[] }>(res);
		if (typeof expected === "string") expect(detail).toBe(expected);
		else expect(Array.isArray(detail) && detail[0]?.loc.slice(0, expected.length)).toEqual(expected);
		expect(await storedKeys(user.id)).toBe(1);
	});

	it("sets an expiry in days or at a time, and lists it", async () => {
		const { key } = await userWithKey();
		const inDays = await mint(key, { expires_in_days: 30 });
		expect(Date.parse(inDays.expires_at ?? "") - Date.parse(inDays.created_at)).toBe(30 * 86_400_000);
		const at = new Date(Date.now() + 7 * 86_400_000).toISOString();
		const atTime = await mint(key, { expires_at: at });
		expect(atTime.expires_at).toBe(at);
		expect((await list(key)).find((k) => k.id === atTime.id)?.expires_at).toBe(at);
		expect(await meStatus(atTime.token)).toBe(200);
	});

	it("never mints a key that outlives the key minting it: no expiry asked gets the caller's, a later one is a 422", async () => {
		const { key, user } = await userWithKey();
		const shortLived = await mint(key, { expires_in_days: 7 });
		const child = await mint(shortLived.token, {});
		expect(child.expires_at).toBe(shortLived.expires_at);
		const sooner = await mint(shortLived.token, { expires_in_days: 2 });
		expect(Date.parse(sooner.expires_at ?? "")).toBeLessThan(Date.parse(shortLived.expires_at ?? ""));
		const before = await storedKeys(user.id);
		for (const body of [{ expires_in_days: 30 }, { expires_at: new Date(Date.now() + 8 * 86_400_000).toISOString() }]) {
			const res = await call("POST", "/auth/keys", { headers: as(shortLived.token), json: body });
			expect(res.status).toBe(422);
			const [error] = (await json<{ detail: { loc: string[]; msg: string }[] }>(res)).detail;
			expect(error?.loc).toEqual(["body", Object.keys(body)[0]]);
			expect(error?.msg).toBe(
				`must not be after the calling key's own expiry (${shortLived.expires_at}): a key never outlives the key that mints it`,
			);
		}
		expect(await storedKeys(user.id)).toBe(before);
	});

	it("stops a key at its expiry: 401 once the time has passed", async () => {
		const { key } = await userWithKey();
		const minted = await mint(key, { expires_at: new Date(Date.now() + 1500).toISOString() });
		expect(await meStatus(minted.token)).toBe(200);
		await until("the key's expiry to pass", () => Date.now() > Date.parse(minted.expires_at ?? ""));
		const res = await call("GET", "/auth/me", { headers: as(minted.token) });
		expect(res.status).toBe(401);
		expect(await res.json()).toEqual({ detail: "Invalid API key" });
	});

	it("refuses a key whose stored expiry is already past", async () => {
		const { key } = await userWithKey();
		const minted = await mint(key, { expires_in_days: 1 });
		await env.DB.prepare("UPDATE api_tokens SET expires_at = ? WHERE id = ?").bind("2021-06-01T00:00:00.000Z", minted.id).run();
		expect(await meStatus(minted.token)).toBe(401);
	});

	it("caps the live keys per user (MAX_API_KEYS_PER_USER) with 409; expired keys do not count", async () => {
		const user = await createUser();
		const key = await mintKey(user.id, "bot,tx");
		const overrides = { MAX_API_KEYS_PER_USER: "3" } as Partial<Env>;
		const post = async () => {
			const ctx = createExecutionContext();
			const res = await worker.fetch(
				new Request("https://gateway.test/auth/keys", { method: "POST", headers: as(key) }),
				{ ...env, ...overrides } as Env,
				ctx,
			);
			await waitOnExecutionContext(ctx);
			return res;
		};
		expect((await post()).status).toBe(201);
		expect((await post()).status).toBe(201);
		const refused = await post();
		expect(refused.status).toBe(409);
		expect(await refused.json()).toEqual({ detail: "You have 3 live API keys, the most allowed; revoke one first" });
		expect(await storedKeys(user.id)).toBe(3);
		// An expired key leaves a place free.
		await env.DB.prepare(
			"UPDATE api_tokens SET expires_at = ? WHERE user_id = ? AND id <> (SELECT min(id) FROM api_tokens WHERE user_id = ?)",
		)
			.bind("2021-06-01T00:00:00.000Z", user.id, user.id)
			.run();
		expect((await post()).status).toBe(201);
	});
});

describe("revoking your own key", () => {
	it("answers 204, after which the key gets 401 at once and leaves the list", async () => {
		const { key } = await userWithKey();
		const minted = await mint(key);
		expect(await meStatus(minted.token)).toBe(200);
		const res = await call("DELETE", `/auth/keys/${minted.id}`, { headers: as(key) });
		expect(res.status).toBe(204);
		expect(await res.text()).toBe("");
		const after = await call("GET", "/auth/me", { headers: as(minted.token) });
		expect(after.status).toBe(401);
		expect(await after.json()).toEqual({ detail: "Invalid API key" });
		expect((await list(key)).map((k) => k.id)).not.toContain(minted.id);
		expect((await call("DELETE", `/auth/keys/${minted.id}`, { headers: as(key) })).status).toBe(404);
	});

	it("answers 404 for another user's key and leaves it working", async () => {
		const mine = await userWithKey();
		const theirs = await userWithKey();
		const [their] = await list(theirs.key);
		const res = await call("DELETE", `/auth/keys/${their?.id}`, { headers: mine.headers });
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ detail: "API key not found" });
		expect(await meStatus(theirs.key)).toBe(200);
	});

	it("lets the calling key revoke itself: that answer is 204, its next request 401", async () => {
		const { key, user } = await userWithKey();
		const spare = await mintKey(user.id);
		const [self] = (await list(key)).filter((k) => k.current);
		expect((await call("DELETE", `/auth/keys/${self?.id}`, { headers: as(key) })).status).toBe(204);
		expect(await meStatus(key)).toBe(401);
		expect(await meStatus(spare)).toBe(200);
	});

	it.each(["abc", "0", "-4", "1.5"])("refuses the key id %s with 422", async (id) => {
		const { key } = await userWithKey();
		expect((await call("DELETE", `/auth/keys/${id}`, { headers: as(key) })).status).toBe(422);
		expect(await meStatus(key)).toBe(200);
	});
});

describe("revoking a key closes the live feed sockets opened with it", () => {
	const KEY_ENDED = {
		type: "error",
		error: "authorization_service_error",
		status: 401,
		detail: "The API key this connection was opened with was revoked or has expired",
	};

	it("ends a /ws socket opened with the key (header or ticket), and leaves the user's other sockets open", async () => {
		const { key } = await userWithKey();
		const doomed = await mint(key);
		const byHeader = await openSocket("/ws", as(doomed.token));
		const ticket = await json<{ ticket: string }>(await call("POST", "/auth/ticket", { headers: as(doomed.token) }));
		const byTicket = await openSocket(`/ws?ticket=${encodeURIComponent(ticket.ticket)}`, {});
		const kept = await openSocket("/ws", as(key));
		const code = meetCode();
		await createPlan(as(key), { meeting_url: meetUrl(code) });
		for (const socket of [byHeader, byTicket, kept]) {
			socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
			await socket.waitFor("subscribed", (m) => m.type === "subscribed");
		}

		expect((await call("DELETE", `/auth/keys/${doomed.id}`, { headers: as(key) })).status).toBe(204);
		for (const socket of [byHeader, byTicket]) {
			await eventually("the socket to close", () => socket.closed);
			expect(socket.closed?.code).toBe(4401);
			expect(socket.messages.at(-1)).toEqual(KEY_ENDED);
		}
		await kept.pingPong();
		expect(kept.closed).toBeUndefined();
		expect(kept.messages).not.toContainEqual(KEY_ENDED);
		kept.close();
	});

	it("ends a /ws socket when its key expires, and leaves a socket of a key without expiry open", async () => {
		const { key } = await userWithKey();
		const shortLived = await mint(key, { expires_at: new Date(Date.now() + 1500).toISOString() });
		const expiring = await openSocket("/ws", as(shortLived.token));
		const kept = await openSocket("/ws", as(key));
		await expiring.pingPong();
		expect(expiring.closed).toBeUndefined();
		await eventually("the expired key's socket to close", () => expiring.closed, 10_000);
		expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(shortLived.expires_at ?? ""));
		expect(expiring.closed?.code).toBe(4401);
		expect(expiring.messages.at(-1)).toEqual(KEY_ENDED);
		await kept.pingPong();
		expect(kept.closed).toBeUndefined();
		kept.close();
	});
});
