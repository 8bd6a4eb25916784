/**
 * Which engine transcribes a bot (docs/api.md#transcription-engines): the bot's
 * `transcription_engine`, else the account's (`PUT /user/transcription` `engine`; an account with
 * its own endpoint URL and no engine keeps `openai`, as before engines could be chosen), else the
 * deployment's `TRANSCRIPTION_ENGINE` (unset: `openai` with `TRANSCRIPTION_URL`, else `captions`).
 * An engine that needs a key or an endpoint nobody set is refused with 422 before anything is
 * claimed, naming what to set.
 */
import type { Env } from "../env";
import { ApiError } from "../errors";
import type { ResolvedSettings } from "../settings/account-settings";
import { setting } from "../settings/deployment-defaults";
import { type StreamingProvider, TranscriptionEngine } from "../shapes/transcription";

/** Each streaming provider's deployment key, its base URL setting, and the path its streaming API answers on. */
export const PROVIDERS = {
	deepgram: { label: "Deepgram", key: "DEEPGRAM_API_KEY", url: "DEEPGRAM_URL", path: "/v1/listen" },
	assemblyai: { label: "AssemblyAI", key: "ASSEMBLYAI_API_KEY", url: "ASSEMBLYAI_URL", path: "/v3/ws" },
} as const satisfies Record<StreamingProvider, { label: string; key: keyof Env; url: "DEEPGRAM_URL" | "ASSEMBLYAI_URL"; path: string }>;

/** The deployment's engine: TRANSCRIPTION_ENGINE when it names one, else `openai` with TRANSCRIPTION_URL, else `captions`. */
export function deploymentEngine(env: Env): TranscriptionEngine {
	const configured = TranscriptionEngine.safeParse(env.TRANSCRIPTION_ENGINE?.trim().toLowerCase());
	if (configured.success) return configured.data;
	return env.TRANSCRIPTION_URL ? "openai" : "captions";
}

/** The engine a bot uses: its own choice, the account's, the deployment's. */
export function chooseEngine(
	env: Env,
	t: ResolvedSettings["transcription"],
	bot: TranscriptionEngine | null | undefined,
): TranscriptionEngine {
	if (bot) return bot;
	if (t.engine) return t.engine;
	return t.owner === "account" ? "openai" : deploymentEngine(env);
}

/** A streaming provider's key for this account: its own when it chose that provider and gave one, else the deployment's. */
export function providerKey(env: Env, t: ResolvedSettings["transcription"], provider: StreamingProvider): string | null {
	if (t.engine === provider && t.provider_key) return t.provider_key;
	return env[PROVIDERS[provider].key]?.trim() || null;
}

/** The provider's streaming address (its base URL setting, then its path), as an http(s) URL as workerd's fetch upgrades it. */
export function providerStreamUrl(env: Env, provider: StreamingProvider): URL {
	const base = setting(env, PROVIDERS[provider].url).replace(/\/+$/, "");
	const url = new URL(`${base}${PROVIDERS[provider].path}`);
	if (url.protocol === "wss:") url.protocol = "https:";
	if (url.protocol === "ws:") url.protocol = "http:";
	return url;
}

/** 422 `{detail}` when the engine cannot run for lack of a key or an endpoint, naming what to set. */
export function requireEngineUsable(env: Env, t: ResolvedSettings["transcription"], engine: TranscriptionEngine): void {
	if (engine === "openai" && !t.url) {
		throw new ApiError(
			422,
			"The openai transcription engine needs an endpoint: set `url` with PUT /user/transcription, or the deployment's TRANSCRIPTION_URL",
		);
	}
	if ((engine === "deepgram" || engine === "assemblyai") && !providerKey(env, t, engine)) {
		const { label, key } = PROVIDERS[engine];
		throw new ApiError(
			422,
			`The ${engine} transcription engine needs an API key from ${label}: set \`engine\` "${engine}" and \`token\` with PUT /user/transcription, or the deployment's ${key}`,
		);
	}
}
