/**
 * Each bot host's own credential (docs/bot-fleet.md#host-credentials): minted and revoked by an
 * admin, shown once, stored only as its hash, and bound to its host.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/sha256";
import { meetCode } from "../../shared/meetings";
import { claimAttempt } from "../meetings/bot-sim";
import { sendBot } from "../meetings/helpers";
import { ADMIN, call, json, userWithKey } from "../support";

const mint = (hostId: string, headers: Record<string, string> = ADMIN) =>
	call("POST", "/admin/bot-hosts", { headers, json: { host_id: hostId } });

const rows = async () =>
	(await env.DB.prepare("SELECT host_id, credential_hash, created_at FROM bot_host_credentials ORDER BY host_id").all()).results;

describe("bot host credentials", () => {
	it("are shown once when minted, stored only as their hash, and listed without them", async () => {
		const res = await mint("pod-0");
		expect(res.status).toBe(201);
		const minted = await json<{ host_id: string; created_at: string; credential: string }>(res);
		expect(minted).toEqual({
			host_id: "pod-0",
			created_at: expect.any(String),
			credential: expect.stringMatching(/^bhc_[A-Za-z0-9_-]{43}$/),
		});
		const stored = (await rows()).find((r) => r.host_id === "pod-0");
		expect(stored).toEqual({ host_id: "pod-0", credential_hash: await sha256Hex(minted.credential), created_at: minted.created_at });
		expect(JSON.stringify(await rows())).not.toContain(minted.credential);
		const listed = await call("GET", "/admin/bot-hosts", { headers: ADMIN });
		expect(listed.status).toBe(200);
		const hosts = await json<{ host_id: string }[]>(listed);
		expect(hosts).toContainEqual({ host_id: "pod-0", created_at: minted.created_at });
		expect(JSON.stringify(hosts)).not.toContain(minted.credential);
	});

	it("claim as their own host: minting again rotates (the old one stops), revoking stops the new one at once", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const first = (await json<{ credential: string }>(await mint("pod-1"))).credential;
		const second = (await json<{ credential: string }>(await mint("pod-1"))).credential;
		expect(second).not.toBe(first);
		expect((await claimAttempt(m.id, 1, "pod-1", first)).status).toBe(401);
		expect((await call("DELETE", "/admin/bot-hosts/pod-1", { headers: ADMIN })).status).toBe(204);
		expect((await claimAttempt(m.id, 1, "pod-1", second)).status).toBe(401);
		expect(
			(await call("GET", "/admin/bot-hosts", { headers: ADMIN }).then(json<{ host_id: string }[]>)).map((h) => h.host_id),
		).not.toContain("pod-1");
		// Nothing was claimed meanwhile: a host with a credential still takes the attempt.
		expect((await claimAttempt(m.id, 1, "pod-2")).status).toBe(200);
	});

	it("answer 404 to revoking a host that has none, and 422 to a bad host id, storing nothing", async () => {
		expect(await json(await call("DELETE", "/admin/bot-hosts/no-such-host", { headers: ADMIN }))).toEqual({ detail: "Bot host not found" });
		const before = await rows();
		const bad: unknown[] = [
			{},
			{ host_id: "" },
			{ host_id: "a host/with spaces" },
			{ host_id: "x".repeat(201) },
			{ host_id: "ok", extra: 1 },
		];
		for (const body of bad) {
			const res = await call("POST", "/admin/bot-hosts", { headers: ADMIN, json: body });
			expect(res.status, JSON.stringify(body)).toBe(422);
			expect((await json<{ detail: { loc: string[] }[] }>(res)).detail[0]?.loc[0]).toBe("body");
		}
		const notJson = await call("POST", "/admin/bot-hosts", { headers: { ...ADMIN, "content-type": "application/json" }, body: "{" });
		expect(notJson.status).toBe(422);
		expect((await call("GET", "/admin/bot-hosts?limit=0", { headers: ADMIN })).status).toBe(422);
		expect(await rows()).toEqual(before);
	});

	it("need the admin token: a user's key or none gets 403 and mints nothing", async () => {
		const before = await rows();
		const { headers } = await userWithKey();
		for (const who of [{}, headers, { "X-Admin-API-Key": "wrong" }] as Record<string, string>[]) {
			expect((await mint("pod-9", who)).status).toBe(403);
			expect((await call("GET", "/admin/bot-hosts", { headers: who })).status).toBe(403);
			expect((await call("DELETE", "/admin/bot-hosts/pod-0", { headers: who })).status).toBe(403);
		}
		expect(await rows()).toEqual(before);
	});
});
