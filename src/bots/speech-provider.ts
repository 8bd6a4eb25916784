import type { Env } from "../env";
import { ApiError } from "../errors";
import { callProvider } from "../outbound/provider-call";
import { endpointAllowed, type ResolvedSettings } from "../settings/account-settings";
import { setting } from "../settings/deployment-defaults";

export const VOICES = ["alloy", "echo", "fable", "onyx", "nova", "shimmer"] as const;
export type Voice = (typeof VOICES)[number];

/** What `voice` is when none is sent: the reference's `SpeakRequest` default, each provider's own choice. */
export const AUTO_VOICE = "auto";

/** Longest `voice` taken: names of voices are short; this bounds what reaches a provider and the bot. */
export const MAX_VOICE_LENGTH = 100;

/**
 * The voice an OpenAI-compatible endpoint is asked for: one of its six, else (`auto`, another
 * provider's name such as the reference's `en-US-1`) the default `alloy`, so the text is still spoken.
 */
export function openaiVoice(voice: string): Voice {
	const wanted = voice.trim().toLowerCase();
	return VOICES.find((v) => v === wanted) ?? "alloy";
}

/** The speech providers this deployment has: espeak-ng on the bot host, or an OpenAI-compatible endpoint. */
export const SPEECH_PROVIDERS = ["espeak", "openai"] as const;
export type SpeechProvider = (typeof SPEECH_PROVIDERS)[number];

const known = (name: unknown): SpeechProvider | null => {
	const wanted = typeof name === "string" ? name.trim().toLowerCase() : "";
	return SPEECH_PROVIDERS.find((p) => p === wanted) ?? null;
};

/**
 * The provider that speaks a text. `provider` may be any string (docs/api.md#speech-providers), and the reference's
 * clients name providers this deployment does not have (`piper`, `elevenlabs`): those, like no
 * name at all, get the deployment's provider (`DEFAULT_SPEECH_PROVIDER`, else espeak) rather than
 * a refusal. speak.started says which one spoke.
 */
export function speechProvider(env: Env, requested: unknown): SpeechProvider {
	// A configured name this deployment does not have falls back to espeak, which every bot host has.
	return known(requested) ?? known(setting(env, "DEFAULT_SPEECH_PROVIDER")) ?? "espeak";
}

/** Largest audio read from the provider: a 4,096-character text is a few minutes of speech. */
export const MAX_SPEECH_BYTES = 10 * 1024 * 1024;

/**
 * Text to speech through an OpenAI-compatible `/v1/audio/speech` endpoint, done here so the
 * account's model key never leaves the Worker; the bot receives audio only. Returns WAV bytes
 * as base64. A redirect is not followed (it could lead past the guard) and the audio is read
 * up to MAX_SPEECH_BYTES.
 */
export async function synthesizeSpeech(env: Env, models: ResolvedSettings["models"], text: string, voice: Voice): Promise<string> {
	if (!models.base_url) throw new ApiError(422, "The openai speech provider needs a model base_url (PUT /user/models)");
	const base = models.base_url.replace(/\/+$/, "");
	const url = `${base.endsWith("/v1") ? base : `${base}/v1`}/audio/speech`;
	const allowed = endpointAllowed(env, url, models.base_url_owner);
	if (!allowed.ok) throw new ApiError(422, `The speech provider address is not allowed: ${allowed.detail}`);
	// An account's own address without its own key is called without one (resolveSettings).
	const headers: Record<string, string> = { "content-type": "application/json" };
	if (models.api_key) headers.authorization = `Bearer ${models.api_key}`;
	const { bytes } = await callProvider(
		url,
		{
			method: "POST",
			headers,
			body: JSON.stringify({ model: setting(env, "TTS_MODEL"), input: text, voice, response_format: "wav" }),
		},
		{ what: "The speech provider", answer: "audio", maxBytes: MAX_SPEECH_BYTES, timeoutMs: 30_000 },
	);
	let binary = "";
	for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
	return btoa(binary);
}
