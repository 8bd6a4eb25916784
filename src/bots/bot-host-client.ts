import type { SpawnRequest } from "../bot-channel/protocol";
import type { Env } from "../env";

const SPAWN_TIMEOUT_MS = 10_000;

export type BotHostResult = { ok: true } | { ok: false; detail: string };

/** Calls to the bot host, authenticated with the shared secret. */
async function callBotHost(env: Env, method: string, path: string, body?: unknown): Promise<BotHostResult> {
	if (!env.BOT_HOST_URL) return { ok: false, detail: "no bot host is configured (BOT_HOST_URL)" };
	try {
		// Relative to the configured base, so a bot host can live under a path prefix.
		const base = env.BOT_HOST_URL.endsWith("/") ? env.BOT_HOST_URL : `${env.BOT_HOST_URL}/`;
		const res = await fetch(new URL(path.replace(/^\//, ""), base), {
			method,
			headers: { authorization: `Bearer ${env.BOT_HOST_SECRET ?? ""}`, ...(body ? { "content-type": "application/json" } : {}) },
			body: body ? JSON.stringify(body) : undefined,
			signal: AbortSignal.timeout(SPAWN_TIMEOUT_MS),
		});
		await res.body?.cancel();
		return res.ok ? { ok: true } : { ok: false, detail: `bot host answered ${res.status}` };
	} catch (err) {
		return { ok: false, detail: `bot host unreachable (${err instanceof Error ? err.name : "error"})` };
	}
}

export const spawnBot = (env: Env, request: SpawnRequest) => callBotHost(env, "POST", "/bots", request);
export const stopBot = (env: Env, meetingId: number) => callBotHost(env, "DELETE", `/bots/${meetingId}`);
