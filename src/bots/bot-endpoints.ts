/**
 * Where a bot reaches the gateway (its channel, its recording upload and its transcription
 * relay) and the token it presents there. The address comes only from `PUBLIC_BASE_URL`, never
 * from a request: a forged Host header would otherwise send the bot, holding a valid token, to
 * an address of the caller's choosing. Without it no bot is launched.
 */
import { signChannelToken } from "../bot-channel/channel-token";
import type { SpawnRequest } from "../bot-channel/protocol";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { maxRecordingBytes } from "../recordings/upload-rules";

export const PUBLIC_BASE_URL_MISSING = "PUBLIC_BASE_URL is not configured: bots cannot be launched";
const PUBLIC_BASE_URL_INVALID = "PUBLIC_BASE_URL is not an http(s) URL: bots cannot be launched";
const SECRETS_KEY_MISSING = "SECRETS_KEY is not configured: bots cannot be launched";

/** A bot's channel token outlives any meeting (the bot's own max time ends it first). */
const CHANNEL_TOKEN_TTL_S = 24 * 3600;

/**
 * What every bot needs from configuration: the gateway origin it connects to and the key its
 * channel tokens are signed with. A 503 naming what is missing; checked before a launch claims
 * anything, so a bot that could not be given its addresses never starts.
 */
export function botLaunchConfig(env: Env): { origin: URL; secretsKey: string } {
	const configured = env.PUBLIC_BASE_URL?.trim();
	if (!configured) throw new ApiError(503, PUBLIC_BASE_URL_MISSING);
	let origin: URL;
	try {
		origin = new URL(configured);
	} catch {
		throw new ApiError(503, PUBLIC_BASE_URL_INVALID);
	}
	if (origin.protocol !== "https:" && origin.protocol !== "http:") throw new ApiError(503, PUBLIC_BASE_URL_INVALID);
	if (!env.SECRETS_KEY) throw new ApiError(503, SECRETS_KEY_MISSING);
	return { origin, secretsKey: env.SECRETS_KEY };
}

/**
 * The channel, uploads (recording, screenshots) and transcription addresses of one attempt's bot, with its freshly signed
 * token and the upload's size limit. The transcription address is the Worker's relay
 * (src/routes/bot-transcription.ts), an OpenAI-compatible endpoint the bot calls with the same
 * token: the token of the account's endpoint never reaches the bot host.
 */
export async function botEndpoints(
	env: Env,
	meetingId: number,
	attempt: number,
): Promise<
	Pick<SpawnRequest, "channel" | "recording_upload_url" | "recording_max_bytes" | "screenshot_upload_url"> & {
		transcription: NonNullable<SpawnRequest["transcription"]>;
		transcription_stream: NonNullable<SpawnRequest["transcription_stream"]>;
	}
> {
	const { origin, secretsKey } = botLaunchConfig(env);
	const wsBase = `${origin.protocol === "https:" ? "wss:" : "ws:"}//${origin.host}`;
	const token = await signChannelToken(secretsKey, meetingId, attempt, CHANNEL_TOKEN_TTL_S);
	return {
		channel: { url: `${wsBase}/internal/bot-channel/${meetingId}`, token },
		recording_upload_url: `${origin.origin}/internal/recordings/${meetingId}`,
		recording_max_bytes: maxRecordingBytes(env),
		screenshot_upload_url: `${origin.origin}/internal/screenshots/${meetingId}`,
		transcription: { url: `${origin.origin}${transcriptionRelayPath(meetingId)}`, token },
		transcription_stream: { url: `${wsBase}${transcriptionStreamPath(meetingId)}`, token },
	};
}

/** Where a bot opens its streaming provider's WebSocket through the Worker (src/routes/transcription-stream.ts). */
export const transcriptionStreamPath = (meetingId: number) => `/internal/bot-channel/${meetingId}/transcription/stream`;

/** Where a bot posts its transcription requests: ends in `/audio/transcriptions`, as OpenAI's does. */
const transcriptionRelayPath = (meetingId: number) => `/internal/bot-channel/${meetingId}/audio/transcriptions`;

/** Where a recording bot streams its files in parts (docs/bot-channel.md#recording-parts), next to `recording_upload_url`. */
export function recordingPartsUrl(env: Env, meetingId: number): string {
	return `${botLaunchConfig(env).origin.origin}/internal/recordings/${meetingId}/parts`;
}
