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
		if (res.ok) {
			await res.body?.cancel();
			return { ok: true };
		}
		const said = await hostError(res);
		return { ok: false, detail: `bot host answered ${res.status}${said ? `: ${said}` : ""}` };
	} catch (err) {
		return { ok: false, detail: `bot host unreachable (${err instanceof Error ? err.name : "error"})` };
	}
}

/**
 * The bot host's own sentence for a refusal (`{"error": "bot host is at capacity: 20 bots"}`),
 * so the meeting records why. Only that field, as plain short text: the host's error texts
 * carry no secrets, and anything else in the body is not passed on.
 */
async function hostError(res: Response): Promise<string | null> {
	try {
		const body: unknown = JSON.parse((await res.text()).slice(0, 4096));
		const error = body && typeof body === "object" && "error" in body ? body.error : null;
		return typeof error === "string" ? error.replace(/[^\x20-\x7e]/g, " ").slice(0, 200) : null;
	} catch {
		return null;
	}
}

export const spawnBot = (env: Env, request: SpawnRequest) => callBotHost(env, "POST", "/bots", request);
export const stopBot = (env: Env, meetingId: number) => callBotHost(env, "DELETE", `/bots/${meetingId}`);
