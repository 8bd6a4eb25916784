import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingStreamEvent as Frame } from "../../../src/agent/meeting-stream-events";
import { SseReader } from "../agent/sse";
import { openSocket } from "../meetings/bot-sim";
import { liveMeeting, segment } from "../meetings/helpers";
import { call, json, mintKey, userWithKey } from "../support";

/**
 * Keys that end with the key that made them (docs/api.md#your-own-api-keys): a key minted
 * through POST /auth/keys is revoked with its minter, down the chain, and the list shows who
 * minted whom; a key manages only keys no wider than itself; self-minted keys expire.
 */

interface ApiKey {
	id: number;
	scopes: string[];
	expires_at: string | null;
	created_at: string;
	current: boolean;
	minted_by: number | null;
}
type Minted = ApiKey & { token: string };

const as = (key: string) => ({ "X-API-Key": key });
const DAY_MS = 86_400_000;

async function mint(key: string, body: Record<string, unknown> = {}): Promise<Minted> {
	const res = await call("POST", "/auth/keys", { headers: as(key), json: body });
	expect(res.status, await res.clone().text()).toBe(201);
	return json<Minted>(res);
}

async function list(key: string): Promise<ApiKey[]> {
	const res = await call("GET", "/auth/keys", { headers: as(key) });
	expect(res.status).toBe(200);
	return (await json<{ keys: ApiKey[] }>(res)).keys;
}

const meStatus = async (key: string) => (await call("GET", "/auth/me", { headers: as(key) })).status;
const revoke = (byKey: string, id: number) => call("DELETE", `/auth/keys/${id}`, { headers: as(byKey) });

/** An admin-minted root, a child it minted, a grandchild the child minted, and an admin-minted bystander. */
async function family(scopes = "bot,tx") {
	const { user, key: root } = await userWithKey(scopes);
	const bystander = await mintKey(user.id, scopes);
	const child = await mint(root);
	const grandchild = await mint(child.token);
	const [rootRow] = (await list(root)).filter((k) => k.current);
	return { user, root, rootId: rootRow?.id ?? 0, bystander, child, grandchild };
}

describe("revoking a key revokes the keys it minted", () => {
	it("lists the lineage: each minted key names the key that minted it; admin-minted keys name none", async () => {
		const { root, rootId, child, grandchild } = await family();
		const keys = await list(root);
		const byId = new Map(keys.map((k) => [k.id, k]));
		expect(byId.get(rootId)?.minted_by).toBeNull();
		expect(byId.get(child.id)?.minted_by).toBe(rootId);
		expect(byId.get(grandchild.id)?.minted_by).toBe(child.id);
		expect(child.minted_by).toBe(rootId);
		expect(keys.filter((k) => k.minted_by === null)).toHaveLength(2);
	});

	it("revoking the root ends its child and grandchild at once (401), and leaves the bystander working", async () => {
		const { root, rootId, bystander, child, grandchild, user } = await family();
		for (const key of [root, child.token, grandchild.token]) expect(await meStatus(key)).toBe(200);
		expect((await revoke(bystander, rootId)).status).toBe(204);
		for (const key of [root, child.token, grandchild.token]) {
			const res = await call("GET", "/auth/me", { headers: as(key) });
			expect(res.status).toBe(401);
			expect(await res.json()).toEqual({ detail: "Invalid API key" });
		}
		expect(await meStatus(bystander)).toBe(200);
		const left = await env.DB.prepare("SELECT count(*) AS n FROM api_tokens WHERE user_id = ?").bind(user.id).first<number>("n");
		expect(left).toBe(1);
	});

	it("revoking a key by itself takes what it minted with it; its own minter stays", async () => {
		const { root, child, grandchild } = await family();
		expect((await revoke(child.token, child.id)).status).toBe(204);
		expect(await meStatus(child.token)).toBe(401);
		expect(await meStatus(grandchild.token)).toBe(401);
		expect(await meStatus(root)).toBe(200);
		expect((await list(root)).map((k) => k.id)).not.toContain(grandchild.id);
	});

	it("the admin's revocation cascades the same way", async () => {
		const { rootId, child, grandchild, bystander } = await family();
		const res = await call("DELETE", `/admin/tokens/${rootId}`, { headers: { "X-Admin-API-Key": env.ADMIN_API_TOKEN ?? "" } });
		expect(res.status).toBe(204);
		expect(await meStatus(child.token)).toBe(401);
		expect(await meStatus(grandchild.token)).toBe(401);
		expect(await meStatus(bystander)).toBe(200);
	});

	it("closes the minted keys' /ws sockets (header and ticket) and meeting streams as a direct revocation does", async () => {
		const { root, rootId, bystander, child, grandchild } = await family();
		const { meeting, bot } = await liveMeeting(as(root));
		const byHeader = await openSocket("/ws", as(child.token));
		const ticket = await json<{ ticket: string }>(await call("POST", "/auth/ticket", { headers: as(grandchild.token) }));
		const byTicket = await openSocket(`/ws?ticket=${encodeURIComponent(ticket.ticket)}`, {});
		const kept = await openSocket("/ws", as(bystander));
		const streamRes = await call("GET", `/agent/api/meeting/stream?meeting_id=${meeting.id}`, { headers: as(grandchild.token) });
		expect(streamRes.status).toBe(200);
		const stream = new SseReader<Frame>(streamRes);
		try {
			expect((await revoke(bystander, rootId)).status).toBe(204);
			for (const socket of [byHeader, byTicket]) {
				await socket.waitFor("the key-ended frame", (m) => m.type === "error" && m.status === 401);
				expect(socket.messages.at(-1)).toEqual({
					type: "error",
					error: "authorization_service_error",
					status: 401,
					detail: "The API key this connection was opened with was revoked or has expired",
				});
			}
			await bot.send({ type: "segment", segment: segment({ segment_id: "after", text: "after the revocation" }) });
			const frames: Frame[] = [];
			for (;;) {
				const event = await stream.next();
				if (!event) break;
				if (event.frame.type !== "ping") frames.push(event.frame);
			}
			expect(frames.at(-1)).toEqual({
				type: "error",
				reason: "access_revoked",
				message: "The API key this stream was opened with was revoked or has expired",
			});
			expect(frames.some((f) => f.type === "transcript" && f.text === "after the revocation")).toBe(false);
			await kept.pingPong();
			expect(kept.closed).toBeUndefined();
		} finally {
			kept.close();
			await stream.cancel();
		}
	});
});

describe("a key manages only keys no wider than itself", () => {
	it("a tx key cannot revoke a bot key (403, the key keeps working), but revokes a tx key", async () => {
		const { user, key: txKey } = await userWithKey("tx");
		const botKey = await mintKey(user.id, "bot,tx");
		const otherTx = await mintKey(user.id, "tx");
		const ids = new Map((await list(botKey)).map((k) => [k.scopes.join(","), k.id]));
		const refused = await revoke(txKey, ids.get("bot,tx") ?? 0);
		expect(refused.status).toBe(403);
		expect(await refused.json()).toEqual({
			detail: `A key can revoke only keys with no scope it lacks (tx); key ${ids.get("bot,tx")} also has bot. Sign in with a key that has them.`,
		});
		expect(await meStatus(botKey)).toBe(200);
		const txIds = (await list(otherTx)).filter((k) => k.scopes.join(",") === "tx" && k.current).map((k) => k.id);
		expect((await revoke(txKey, txIds[0] ?? 0)).status).toBe(204);
		expect(await meStatus(otherTx)).toBe(401);
	});

	it("a bot-only key cannot revoke a tx key, nor a bot,tx one", async () => {
		const { user, key: botOnly } = await userWithKey("bot");
		const wide = await mintKey(user.id, "bot,tx");
		for (const k of (await list(wide)).filter((k) => k.scopes.includes("tx"))) {
			const res = await revoke(botOnly, k.id);
			expect(res.status).toBe(403);
			expect((await json<{ detail: string }>(res)).detail).toContain("also has tx");
		}
		expect(await meStatus(wide)).toBe(200);
	});

	it("a tx key cannot mint a bot key (403) and stores nothing", async () => {
		const { user, key: txKey } = await userWithKey("tx");
		const res = await call("POST", "/auth/keys", { headers: as(txKey), json: { scopes: ["tx", "bot"] } });
		expect(res.status).toBe(403);
		const stored = await env.DB.prepare("SELECT count(*) AS n FROM api_tokens WHERE user_id = ?").bind(user.id).first<number>("n");
		expect(stored).toBe(1);
	});

	it("answers 404 for another user's key, whatever its scopes", async () => {
		const mine = await userWithKey("bot,tx");
		const theirs = await userWithKey("tx");
		const [their] = await list(theirs.key);
		const res = await revoke(mine.key, their?.id ?? 0);
		expect(res.status).toBe(404);
		expect(await meStatus(theirs.key)).toBe(200);
	});
});

describe("self-minted keys expire", () => {
	it("a key asked for no expiry lives 90 days, even from a key without one", async () => {
		const { key } = await userWithKey();
		for (const body of [{}, { expires_at: null }, { expires_in_days: null }]) {
			const minted = await mint(key, body);
			expect(Date.parse(minted.expires_at ?? "") - Date.parse(minted.created_at)).toBe(90 * DAY_MS);
		}
	});

	it("the default is cut to the minting key's own expiry when that comes sooner", async () => {
		const { key } = await userWithKey();
		const weekly = await mint(key, { expires_in_days: 7 });
		expect((await mint(weekly.token)).expires_at).toBe(weekly.expires_at);
	});

	it("a year at most, asked explicitly", async () => {
		const { key } = await userWithKey();
		const yearly = await mint(key, { expires_in_days: 365 });
		expect(Date.parse(yearly.expires_at ?? "") - Date.parse(yearly.created_at)).toBe(365 * DAY_MS);
	});
});
