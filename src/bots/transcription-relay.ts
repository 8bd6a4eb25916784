/**
 * A bot's transcription, relayed by the Worker (docs/bot-channel.md#transcription): the bot
 * posts OpenAI-compatible `/v1/audio/transcriptions` requests to the gateway with its channel
 * token, and the Worker forwards each to the account's endpoint (or the deployment's) with that
 * endpoint's token, so the token never reaches a bot host. An account's address goes through the
 * outbound guard at every use; the call itself is the one speech uses (callProvider: no
 * redirect followed, a timeout, a size cap, no provider text passed on).
 */
import { transcriptionEndpoint } from "../bot-channel/protocol";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { callProvider } from "../outbound/provider-call";
import { endpointAllowed, type ResolvedSettings } from "../settings/account-settings";

/** Largest answer passed back: a verbose_json answer with word timings for 20 s is a few KB. */
export const MAX_TRANSCRIPTION_ANSWER_BYTES = 1024 * 1024;
const TIMEOUT_MS = 30_000;

/** Forwards one multipart request body to the endpoint; the provider's JSON answer, or a `{detail}` error. */
export async function relayTranscription(
	env: Env,
	target: ResolvedSettings["transcription"],
	body: ArrayBuffer,
	contentType: string,
): Promise<Response> {
	if (!target.url) throw new ApiError(409, "The account has no transcription endpoint");
	const url = transcriptionEndpoint(target.url);
	const allowed = endpointAllowed(env, url, target.owner);
	if (!allowed.ok) throw new ApiError(422, `The transcription endpoint is not allowed: ${allowed.detail}`);
	const headers: Record<string, string> = { "content-type": contentType };
	if (target.token) headers.authorization = `Bearer ${target.token}`;
	const { bytes, contentType: answered } = await callProvider(
		url,
		{ method: "POST", headers, body },
		{ what: "The transcription endpoint", answer: "answer", maxBytes: MAX_TRANSCRIPTION_ANSWER_BYTES, timeoutMs: TIMEOUT_MS },
	);
	return new Response(withoutToken(bytes, target.token), { status: 200, headers: { "content-type": answered ?? "application/json" } });
}

/** An endpoint that echoes its credential must not hand it to the bot host after all. */
function withoutToken(bytes: Uint8Array, token: string | null): Uint8Array {
	if (!token) return bytes;
	const text = new TextDecoder().decode(bytes);
	return text.includes(token) ? new TextEncoder().encode(text.replaceAll(token, "[redacted]")) : bytes;
}
