/**
 * Publishing spawn tickets (docs/bot-fleet.md#how-a-bot-is-placed): over the Cloudflare Queues
 * HTTP API when SPAWN_QUEUE_URL is set (locally and in tests: wrangler dev has no pull
 * consumers), else through the BOT_SPAWNS producer binding. A host with a free slot pulls the
 * ticket through the Worker (`queueCall`, src/routes/bot-host-queue.ts) and claims the attempt
 * from the meeting's room. Only the Worker holds SPAWN_QUEUE_TOKEN.
 */
import type { SpawnTicket } from "../bot-channel/fleet";
import type { Env } from "../env";
import { errorName } from "../error-text";

const QUEUE_TIMEOUT_MS = 10_000;

export type PublishResult = { ok: true } | { ok: false; detail: string };

export async function publishSpawnTicket(env: Env, ticket: SpawnTicket): Promise<PublishResult> {
	if (env.SPAWN_QUEUE_URL) {
		const answer = await queueCall(env, "/messages", { body: ticket, content_type: "json" });
		return answer.ok ? { ok: true } : { ok: false, detail: answer.detail };
	}
	if (env.BOT_SPAWNS) {
		try {
			await env.BOT_SPAWNS.send(ticket, { contentType: "json" });
			return { ok: true };
		} catch (err) {
			return { ok: false, detail: `the spawn queue refused the ticket (${errorName(err)})` };
		}
	}
	return { ok: false, detail: "no spawn queue is configured (BOT_SPAWNS or SPAWN_QUEUE_URL)" };
}

/** What the Queues HTTP API answered a pull or an ack: its `result`, or why there is none. */
export type QueueAnswer = { ok: true; result: unknown } | { ok: false; status: number; detail: string };

/**
 * One call of the Queues HTTP API with the Worker's token: a publish (`/messages`), or a host's
 * pull or ack passed on (`/messages/pull`, `/messages/ack`).
 */
export async function queueCall(env: Env, path: "/messages" | "/messages/pull" | "/messages/ack", body: unknown): Promise<QueueAnswer> {
	if (!env.SPAWN_QUEUE_URL) {
		return { ok: false, status: 503, detail: "This gateway has no spawn queue to pull from: SPAWN_QUEUE_URL is not set" };
	}
	const token = env.SPAWN_QUEUE_TOKEN;
	let res: Response;
	try {
		res = await fetch(`${env.SPAWN_QUEUE_URL.replace(/\/+$/, "")}${path}`, {
			method: "POST",
			headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(QUEUE_TIMEOUT_MS),
		});
	} catch (err) {
		return { ok: false, status: 502, detail: `the spawn queue is unreachable (${errorName(err)})` };
	}
	// The Queues API answers 200 with `success: false` for some refusals: both must hold.
	const envelope = (await res.json().catch(() => null)) as { success?: unknown; result?: unknown } | null;
	if (!res.ok) return { ok: false, status: 502, detail: `the spawn queue answered ${res.status}` };
	if (envelope?.success !== true) {
		return { ok: false, status: 502, detail: `the spawn queue did not accept the ${path === "/messages" ? "ticket" : "request"}` };
	}
	return { ok: true, result: envelope.result ?? null };
}
