import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACCOUNT_STORAGE } from "../../../durable-objects/account/storage";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { meetCode } from "../../shared/meetings";
import { eventually, until } from "../../shared/wait";
import { openSocket, SocketClient } from "../meetings/bot-sim";
import { createPlan, meetUrl } from "../meetings/helpers";
import { ADMIN, call, createUser, json, userWithKey } from "../support";

interface Ticket {
	ticket: string;
	expires_at: string;
}

const INVALID_TICKET_FRAME = { type: "error", error: "authorization_service_error", status: 401, detail: "Invalid or expired ticket" };

async function ticketFor(key: string): Promise<Ticket> {
	const res = await call("POST", "/auth/ticket", { headers: { "X-API-Key": key } });
	expect(res.status, await res.clone().text()).toBe(201);
	return json<Ticket>(res);
}

/** Calls the Worker with a modified deployment environment (a short ticket TTL, a small bucket). */
async function callWith(overrides: Partial<Env>, path: string, headers: Record<string, string>, method = "GET") {
	const ctx = createExecutionContext();
	const res = await worker.fetch(new Request(`https://gateway.test${path}`, { method, headers }), { ...env, ...overrides } as Env, ctx);
	await waitOnExecutionContext(ctx);
	return res;
}

const wsWith = (ticket: string) => openSocket(`/ws?ticket=${encodeURIComponent(ticket)}`, {});

/**
 * A socket that the gateway accepted as the key's account: it answers a subscribe to one of
 * that account's plans (made with `planner`, a bot key) instead of closing; without a planner, a ping.
 */
async function expectAccepted(socket: SocketClient, planner?: Record<string, string>) {
	if (!planner) {
		socket.send({ action: "ping" });
		await socket.waitFor("pong", (m) => m.type === "pong");
		expect(socket.closed).toBeUndefined();
		return socket.close();
	}
	const headers = planner;
	const code = meetCode();
	await createPlan(headers, { meeting_url: meetUrl(code) });
	socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
	const ack = await socket.waitFor("subscribed", (m) => m.type === "subscribed");
	expect(ack).toEqual({ type: "subscribed", meetings: [{ platform: "google_meet", native_id: code }] });
	expect(socket.closed).toBeUndefined();
	socket.close();
}

async function expectRefused(socket: SocketClient, frame: Record<string, unknown> = INVALID_TICKET_FRAME, code = 4401) {
	await eventually("close", () => socket.closed);
	expect(socket.closed?.code).toBe(code);
	expect(socket.messages).toEqual([frame]);
}

describe("POST /auth/ticket", () => {
	it("gives a bot key a ticket that expires in 60 s and is stored only as a hash", async () => {
		const { key, user } = await userWithKey("bot");
		const before = Date.now();
		const { ticket, expires_at } = await ticketFor(key);
		expect(ticket).toMatch(new RegExp(`^wst_${user.id}_[A-Za-z0-9_-]{43}$`));
		expect(ticket).not.toContain(key);
		const ttl = Date.parse(expires_at) - before;
		expect(ttl).toBeGreaterThanOrEqual(59_000);
		expect(ttl).toBeLessThanOrEqual(61_000);

		const stored = await runInDurableObject(env.ACCOUNT.get(env.ACCOUNT.idFromName(String(user.id))), (_a, state) =>
			state.storage.list({ prefix: ACCOUNT_STORAGE.keys.ticketPrefix }),
		);
		expect(stored.size).toBe(1);
		expect(JSON.stringify([...stored])).not.toContain(ticket.slice(-43));
	});

	it("gives a tx key a ticket, and refuses a browser-only key with 403", async () => {
		const tx = await userWithKey("tx");
		await expectAccepted(await wsWith((await ticketFor(tx.key)).ticket));

		const browser = await userWithKey("browser");
		const res = await call("POST", "/auth/ticket", { headers: browser.headers });
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({
			detail:
				'Token scope not authorized for this endpoint: this API key lacks the "bot" or "tx" scope needed for POST /auth/ticket; it has: browser',
		});
	});

	it("needs a key: without one it is 401", async () => {
		const res = await call("POST", "/auth/ticket");
		expect(res.status).toBe(401);
		expect(await res.json()).toEqual({ detail: "Missing API key" });
	});
});

describe("/ws?ticket=", () => {
	it("works once: a second connect with the same ticket is refused in-band with 4401", async () => {
		const { key, headers } = await userWithKey();
		const { ticket } = await ticketFor(key);
		await expectAccepted(await wsWith(ticket), headers);
		await expectRefused(await wsWith(ticket));
	});

	it("refuses an expired ticket", async () => {
		const { key } = await userWithKey();
		const res = await callWith({ AUTH_TICKET_TTL_S: "1" }, "/auth/ticket", { "X-API-Key": key }, "POST");
		expect(res.status).toBe(201);
		const { ticket, expires_at } = await json<Ticket>(res);
		expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(1000);
		// Waited out on the clock, not by trying: a ticket works once.
		await until("the ticket's expiry to pass", () => Date.now() > Date.parse(expires_at));
		await expectRefused(await wsWith(ticket));
	});

	it("refuses a ticket whose key was revoked after it was issued", async () => {
		const user = await createUser();
		const minted = await json<{ id: number; token: string }>(
			await call("POST", `/admin/users/${user.id}/tokens`, { headers: ADMIN, json: { scopes: ["bot"] } }),
		);
		const { ticket } = await ticketFor(minted.token);
		expect((await call("DELETE", `/admin/tokens/${minted.id}`, { headers: ADMIN })).status).toBe(204);
		await expectRefused(await wsWith(ticket));
	});

	it("refuses a ticket whose key has expired since", async () => {
		const user = await createUser();
		const minted = await json<{ token: string; expires_at: string }>(
			await call("POST", `/admin/users/${user.id}/tokens`, { headers: ADMIN, json: { scopes: ["bot"], expires_in: 1 } }),
		);
		const { ticket } = await ticketFor(minted.token);
		await until("the key's expiry to pass", () => Date.now() > Date.parse(minted.expires_at));
		await expectRefused(await wsWith(ticket));
	});

	it("takes a token from the account's bucket like a key does", async () => {
		const { key } = await userWithKey();
		const { ticket } = await ticketFor(key);
		const small = { GATEWAY_RATE_LIMIT_RPS: "0.01", GATEWAY_RATE_LIMIT_BURST: "1" };
		expect((await callWith(small, "/auth/me", { "X-API-Key": key })).status).toBe(200);
		const res = await callWith(small, `/ws?ticket=${encodeURIComponent(ticket)}`, { Upgrade: "websocket" });
		if (!res.webSocket) throw new Error(`no WebSocket: ${res.status}`);
		await expectRefused(
			new SocketClient(res.webSocket),
			{ type: "error", error: "authorization_service_error", status: 429, detail: "Rate limit exceeded" },
			1013,
		);
	});

	it("refuses anything not shaped like a ticket, and another account's number in a real ticket", async () => {
		const { key } = await userWithKey();
		const other = await createUser();
		const { ticket } = await ticketFor(key);
		await expectRefused(await wsWith("not-a-ticket"));
		await expectRefused(await wsWith(ticket.replace(/^wst_\d+_/, `wst_${other.id}_`)));
	});

	it("judges the ticket alone when one is given, even beside a valid key", async () => {
		const { key } = await userWithKey();
		await expectRefused(await openSocket("/ws?ticket=wst_1_used", { "X-API-Key": key }));
	});

	it("keeps ?api_key= and X-API-Key working for existing clients", async () => {
		const { key, headers } = await userWithKey();
		await expectAccepted(await openSocket(`/ws?api_key=${encodeURIComponent(key)}`, {}), headers);
		await expectAccepted(await openSocket("/ws", headers), headers);
	});
});

describe("a ticket is not a key", () => {
	it("is refused with 401 by REST routes, as X-API-Key or as a Bearer on /mcp, and stays usable for /ws", async () => {
		const { key, headers } = await userWithKey();
		const { ticket } = await ticketFor(key);
		for (const [method, path] of [
			["GET", "/auth/me"],
			["GET", "/meetings"],
			["POST", "/auth/ticket"],
			["DELETE", "/auth/ticket"],
		] as const) {
			const res = await call(method, path, { headers: { "X-API-Key": ticket } });
			expect(res.status, `${method} ${path}`).toBe(401);
			expect(await res.json()).toEqual({ detail: "Invalid API key" });
		}
		const mcp = await call("POST", "/mcp", { headers: { Authorization: `Bearer ${ticket}` }, json: {} });
		expect(mcp.status).toBe(401);
		await expectAccepted(await wsWith(ticket), headers);
	});

	it("does not work as ?api_key= on /ws", async () => {
		const { key } = await userWithKey();
		const { ticket } = await ticketFor(key);
		const socket = await openSocket(`/ws?api_key=${encodeURIComponent(ticket)}`, {});
		await expectRefused(socket, { type: "error", error: "authorization_service_error", status: 401, detail: "Invalid API key" });
	});
});

describe("DELETE /auth/ticket", () => {
	it("revokes every outstanding ticket of the calling key, and only that key's", async () => {
		const user = await createUser();
		const mint = async () =>
			(await json<{ token: string }>(await call("POST", `/admin/users/${user.id}/tokens`, { headers: ADMIN, json: { scopes: ["bot"] } })))
				.token;
		const signingOut = await mint();
		const otherTab = await mint();
		const first = await ticketFor(signingOut);
		const second = await ticketFor(signingOut);
		const kept = await ticketFor(otherTab);

		const res = await call("DELETE", "/auth/ticket", { headers: { "X-API-Key": signingOut } });
		expect(res.status).toBe(204);
		expect(await res.text()).toBe("");
		await expectRefused(await wsWith(first.ticket));
		await expectRefused(await wsWith(second.ticket));
		await expectAccepted(await wsWith(kept.ticket), { "X-API-Key": otherTab });
		// The key itself still works after signing out of its tickets.
		expect((await call("GET", "/auth/me", { headers: { "X-API-Key": signingOut } })).status).toBe(200);
	});

	it("answers 204 when there is nothing to revoke, and 403 for a browser-only key", async () => {
		const { headers } = await userWithKey("tx");
		expect((await call("DELETE", "/auth/ticket", { headers })).status).toBe(204);
		const browser = await userWithKey("browser");
		expect((await call("DELETE", "/auth/ticket", { headers: browser.headers })).status).toBe(403);
	});
});
