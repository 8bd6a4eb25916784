/**
 * Publishing spawn tickets (docs/bot-fleet.md#how-a-bot-is-placed): over the Cloudflare Queues
 * HTTP API when SPAWN_QUEUE_URL is set (locally and in tests: wrangler dev has no pull
 * consumers), else through the BOT_SPAWNS producer binding. A host with a free slot pulls the
 * ticket and claims the attempt from the meeting's room.
 */
import type { SpawnTicket } from "../bot-channel/fleet";
import type { Env } from "../env";
import { errorName } from "../error-text";

const PUBLISH_TIMEOUT_MS = 10_000;

export type PublishResult = { ok: true } | { ok: false; detail: string };

export async function publishSpawnTicket(env: Env, ticket: SpawnTicket): Promise<PublishResult> {
	if (env.SPAWN_QUEUE_URL) return publishOverHttp(env.SPAWN_QUEUE_URL, env.SPAWN_QUEUE_TOKEN, ticket);
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

async function publishOverHttp(queueUrl: string, token: string | undefined, ticket: SpawnTicket): Promise<PublishResult> {
	let res: Response;
	try {
		res = await fetch(`${queueUrl.replace(/\/+$/, "")}/messages`, {
			method: "POST",
			headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
			body: JSON.stringify({ body: ticket, content_type: "json" }),
			signal: AbortSignal.timeout(PUBLISH_TIMEOUT_MS),
		});
	} catch (err) {
		return { ok: false, detail: `the spawn queue is unreachable (${errorName(err)})` };
	}
	// The Queues API answers 200 with `success: false` for some refusals: both must hold.
	const text = await res.text().catch(() => "");
	if (!res.ok) return { ok: false, detail: `the spawn queue answered ${res.status}` };
	if (!succeeded(text)) return { ok: false, detail: "the spawn queue did not accept the ticket" };
	return { ok: true };
}

function succeeded(text: string): boolean {
	try {
		const envelope: unknown = JSON.parse(text);
		return typeof envelope === "object" && envelope !== null && "success" in envelope && envelope.success === true;
	} catch {
		return false;
	}
}
