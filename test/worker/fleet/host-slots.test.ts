/**
 * Fleet credentials per host (docs/bot-fleet.md#host-credentials): a host pulls spawn tickets
 * through the Worker with its own credential (the queue's token stays in the Worker), gets no
 * more than the free slots it last reported, and claims no more than those; a claim beyond
 * them is refused and logged without secrets.
 */
import { env, SELF } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SpawnTicket } from "../../../src/bot-channel/fleet";
import { SLOTS_REFUSAL } from "../../../src/routes/bot-fleet";
import { meetCode } from "../../shared/meetings";
import { claimAttempt, hostCredential, publishedTicket, QUEUE_MESSAGES } from "../meetings/bot-sim";
import { sendBot } from "../meetings/helpers";
import { userWithKey } from "../support";
import { received, script } from "../webhooks/receiver";

const PULL = `${QUEUE_MESSAGES}/pull`;
const ACK = `${QUEUE_MESSAGES}/ack`;
const QUEUE_AUTH = `Bearer ${env.SPAWN_QUEUE_TOKEN}`;

let warned: string[] = [];
beforeEach(() => {
	warned = [];
	vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warned.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

/** A fresh host with its credential. */
async function newHost() {
	const hostId = `slots-${crypto.randomUUID().slice(0, 8)}`;
	return { hostId, credential: await hostCredential(hostId) };
}

/** The host reports through the real route: `free` slots of `slots`. */
async function report(host: { hostId: string; credential: string }, free: number, slots = 4) {
	const res = await SELF.fetch("https://gateway.test/internal/bot-hosts/reports", {
		method: "POST",
		headers: { "content-type": "application/json", authorization: `Bearer ${host.credential}` },
		body: JSON.stringify({
			host_id: host.hostId,
			version: "test",
			slots,
			running: slots - free,
			launching: 0,
			free,
			draining: false,
			mem_available_mb: 8000,
			load1: 0,
		}),
	});
	expect(res.status).toBe(204);
}

const claim = (meetingId: number, host: { hostId: string; credential: string }) =>
	claimAttempt(meetingId, 1, host.hostId, host.credential, undefined, { reported: false });

async function wantingBots(count: number) {
	const { headers } = await userWithKey("bot,tx", { max_concurrent_bots: 10 });
	return Promise.all(Array.from({ length: count }, () => sendBot(headers, meetCode())));
}

const hostQueue = (path: "pull" | "ack", body: unknown, authorization?: string) =>
	SELF.fetch(`https://gateway.test/internal/bot-hosts/queue/messages/${path}`, {
		method: "POST",
		headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
		body: JSON.stringify(body),
	});

describe("claims within the free slots a host reported", () => {
	it("takes claims up to the reported free slots, refuses the next with 429 and logs it without secrets", async () => {
		const host = await newHost();
		const [a, b, c] = await wantingBots(3);
		await report(host, 2);
		expect((await claim(a?.id ?? 0, host)).status).toBe(200);
		expect((await claim(b?.id ?? 0, host)).status).toBe(200);
		const ticket = (await publishedTicket(c?.id ?? 0)) as SpawnTicket;
		const refused = await SELF.fetch("https://gateway.test/internal/bot-hosts/claims", {
			method: "POST",
			headers: { "content-type": "application/json", authorization: `Bearer ${host.credential}` },
			body: JSON.stringify({ meeting_id: c?.id, attempt: 1, host_id: host.hostId, version: "test", ticket }),
		});
		expect(refused.status).toBe(429);
		expect(refused.headers.get("retry-after")).toBe("5");
		expect(await refused.json()).toEqual({ detail: SLOTS_REFUSAL, reason: "slots" });
		const line = warned.find((w) => w.startsWith("bot host claim refused"));
		expect(line).toBe(`bot host claim refused: beyond the free slots it last reported ${host.hostId} ${c?.id} 1`);
		for (const secret of [host.credential, ticket.signature, ticket.ticket_id]) expect(warned.join("\n")).not.toContain(secret);
		// The next report opens a slot again: the same ticket is claimed.
		await report(host, 1);
		expect((await claim(c?.id ?? 0, host)).status).toBe(200);
	});

	it("refuses a host that never reported, or whose report is older than 60 s", async () => {
		const host = await newHost();
		const [m] = await wantingBots(1);
		expect(await claim(m?.id ?? 0, host)).toMatchObject({ status: 429, body: { reason: "slots" } });
		await report(host, 3);
		await env.DB.prepare("UPDATE bot_hosts SET reported_at = ? WHERE host_id = ?")
			.bind(new Date(Date.now() - 61_000).toISOString(), host.hostId)
			.run();
		expect(await claim(m?.id ?? 0, host)).toMatchObject({ status: 429, body: { reason: "slots" } });
		await report(host, 0);
		expect(await claim(m?.id ?? 0, host)).toMatchObject({ status: 429, body: { reason: "slots" } });
	});

	it("gives the slot back when the room refuses the claim", async () => {
		const host = await newHost();
		const [m] = await wantingBots(1);
		await report(host, 1);
		// The first claim is refused by the room (a ticket it did not publish): no bot starts, the slot stays.
		const stale = await claimAttempt(m?.id ?? 0, 2, host.hostId, host.credential, undefined, { reported: false });
		expect(stale).toMatchObject({ status: 409, body: { reason: "stale" } });
		expect((await claim(m?.id ?? 0, host)).status).toBe(200);
	});

	it("two claims at once cannot both take the last slot", async () => {
		const host = await newHost();
		const meetings = await wantingBots(4);
		await report(host, 1);
		const answers = await Promise.all(meetings.map((m) => claim(m.id, host)));
		expect(answers.map((a) => a.status).sort()).toEqual([200, 429, 429, 429]);
	});
});

describe("a host pulls through the Worker with its own credential", () => {
	it("gets at most its unclaimed reported slots; the Worker asks the queue with its own token", async () => {
		const host = await newHost();
		const auth = `Bearer ${host.credential}`;
		// A visibility no other test asks: this test's pulls are the only ones the scripted answers match.
		const marker = 61_000 + Math.floor(Math.random() * 999);
		const message = { id: "m1", lease_id: `lease-${marker}`, attempts: 1, body: btoa('{"x":1}'), metadata: {} };
		await script(PULL, [
			{
				status: 200,
				match: `"visibility_timeout_ms":${marker}`,
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ success: true, errors: [], messages: [], result: { messages: [message] } }),
			},
		]);
		const mine = async () => (await received(PULL)).filter((r) => r.body.includes(`"visibility_timeout_ms":${marker}`));

		// No report yet: nothing, and the queue is not asked.
		const empty = await hostQueue("pull", { batch_size: 10, visibility_timeout_ms: marker }, auth);
		expect(empty.status).toBe(200);
		expect(await empty.json()).toEqual({ success: true, errors: [], messages: [], result: { messages: [] } });
		expect(await mine()).toHaveLength(0);

		await report(host, 3);
		const pulled = await hostQueue("pull", { batch_size: 10, visibility_timeout_ms: marker }, auth);
		expect(pulled.status).toBe(200);
		const text = await pulled.text();
		expect(JSON.parse(text)).toMatchObject({ success: true, result: { messages: [message] } });
		expect(text).not.toContain(String(env.SPAWN_QUEUE_TOKEN));
		const [asked] = await mine();
		expect(JSON.parse(asked?.body ?? "{}")).toEqual({ batch_size: 3, visibility_timeout_ms: marker });
		expect(asked?.headers.authorization).toBe(QUEUE_AUTH);

		// One claim later the host may pull one slot fewer.
		const [m] = await wantingBots(1);
		expect((await claim(m?.id ?? 0, host)).status).toBe(200);
		await hostQueue("pull", { batch_size: 10, visibility_timeout_ms: marker }, auth);
		expect(JSON.parse((await mine())[1]?.body ?? "{}")).toMatchObject({ batch_size: 2 });
	});

	it("hides a ticket from the other hosts for at most 300 s, and forwards acks and retries with the Worker's token", async () => {
		const host = await newHost();
		const auth = `Bearer ${host.credential}`;
		await report(host, 1);
		const lease = `lease-${crypto.randomUUID()}`;
		const before = (await received(PULL)).length;
		await hostQueue("pull", { batch_size: 1, visibility_timeout_ms: 43_200_000 }, auth);
		const pulls = await received(PULL);
		expect(pulls.length).toBe(before + 1);
		expect(JSON.parse(pulls.at(-1)?.body ?? "{}")).toEqual({ batch_size: 1, visibility_timeout_ms: 300_000 });

		const acked = await hostQueue("ack", { acks: [{ lease_id: lease }], retries: [{ lease_id: `${lease}-r`, delay_seconds: 2 }] }, auth);
		expect(acked.status).toBe(200);
		const ack = (await received(ACK)).find((r) => r.body.includes(lease));
		expect(JSON.parse(ack?.body ?? "{}")).toEqual({ acks: [{ lease_id: lease }], retries: [{ lease_id: `${lease}-r`, delay_seconds: 2 }] });
		expect(ack?.headers.authorization).toBe(QUEUE_AUTH);
	});

	it("refuses a missing, unknown or revoked credential (401) and a bad body (422), asking the queue nothing", async () => {
		const host = await newHost();
		await report(host, 2);
		const before = (await received(PULL)).length + (await received(ACK)).length;
		for (const authorization of [undefined, "Bearer bhc_unknown", `Bearer ${env.SPAWN_QUEUE_TOKEN}`]) {
			const pull = await hostQueue("pull", { batch_size: 1 }, authorization);
			expect(pull.status).toBe(401);
			expect(await pull.json()).toEqual({ detail: "Invalid or missing bot host credential" });
			expect((await hostQueue("ack", { acks: [] }, authorization)).status).toBe(401);
		}
		const auth = `Bearer ${host.credential}`;
		for (const body of [{ batch_size: 0 }, { batch_size: 101 }, { visibility_timeout_ms: 10 }]) {
			expect((await hostQueue("pull", body, auth)).status).toBe(422);
		}
		expect((await hostQueue("ack", { acks: [{ lease_id: "" }] }, auth)).status).toBe(422);
		expect((await hostQueue("ack", { acks: Array.from({ length: 101 }, () => ({ lease_id: "l" })) }, auth)).status).toBe(422);
		expect((await received(PULL)).length + (await received(ACK)).length).toBe(before);
	});

	it("answers the queue's failure as the Queues API would, without the token", async () => {
		const host = await newHost();
		await report(host, 1);
		const marker = 62_000 + Math.floor(Math.random() * 999);
		await script(PULL, [{ status: 500, match: `"visibility_timeout_ms":${marker}`, body: "boom" }]);
		const res = await hostQueue("pull", { batch_size: 1, visibility_timeout_ms: marker }, `Bearer ${host.credential}`);
		expect(res.status).toBe(502);
		const text = await res.text();
		expect(JSON.parse(text)).toMatchObject({ success: false, errors: [{ message: "the spawn queue answered 500" }] });
		expect(text).not.toContain(String(env.SPAWN_QUEUE_TOKEN));
	});
});
