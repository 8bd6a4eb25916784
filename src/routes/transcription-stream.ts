import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { channelAttempt } from "../bot-channel/channel-token";
import { meterAccountAudio, usageDay } from "../bots/relay-meter";
import { relayStream } from "../bots/transcription-stream";
import { ApiError } from "../errors";
import { meetingTranscriptionEngine } from "../meetings/meeting-store";
import { isLive } from "../meetings/status-machine";
import { meetingRoom } from "../objects";
import { loadSettings, resolveSettings } from "../settings/account-settings";
import { isStreamingProvider } from "../shapes/transcription";
import { meterMeetingAudio } from "../usage/usage-store";

/**
 * The bot's streaming transcription relay (docs/bot-channel.md#streaming-transcription): a WebSocket
 * upgrade with the channel token, for a live meeting whose engine (`data.transcription_engine`) is a
 * streaming provider. Only the current attempt's bot is served (its room says so before the
 * provider is called), and its audio is metered per meeting and per account as it goes.
 */
export const transcriptionStreamRoutes = new Hono<AppEnv>();

transcriptionStreamRoutes.get("/internal/bot-channel/:meeting_id/transcription/stream", async (c) => {
	const { meetingId, attempt } = await channelAttempt(
		c.env.SECRETS_KEY,
		c.req.param("meeting_id"),
		c.req.header("authorization"),
		"bot channel",
	);
	if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw new ApiError(426, "Expected a WebSocket upgrade");
	const meeting = await meetingTranscriptionEngine(c.env, meetingId);
	if (!meeting || !isLive(meeting.status)) throw new ApiError(409, "The meeting is not live");
	const engine = meeting.engine ?? "";
	if (!isStreamingProvider(engine)) throw new ApiError(409, "The meeting does not transcribe with a streaming provider");
	const room = meetingRoom(c.env, meetingId);
	// The room first: a replaced bot's token is refused before any provider is called.
	const current = await room.meterTranscription(attempt, 0);
	if (!current.ok) throw new ApiError(current.status, current.detail);
	let settings: Awaited<ReturnType<typeof resolveSettings>>;
	try {
		settings = await resolveSettings(c.env, await loadSettings(c.env, meeting.userId));
	} catch {
		// A stored secret that no longer opens (SECRETS_KEY rotated): nothing the bot can fix.
		throw new ApiError(503, "The account's transcription settings cannot be read");
	}
	const clock = c.get("clock");
	const env = c.env;
	return relayStream(
		env,
		settings.transcription,
		engine,
		new URL(c.req.url).searchParams,
		async (seconds) => {
			const allowed = await room.meterTranscription(attempt, seconds);
			if (!allowed.ok) return { ok: false, detail: allowed.detail };
			const now = clock.now();
			try {
				await meterAccountAudio(env, meeting.userId, seconds, now);
			} catch (err) {
				if (err instanceof ApiError && typeof err.detail === "string") return { ok: false, detail: err.detail };
				throw err;
			}
			// The meeting's share of the account's count, for its usage row (docs/api.md#usage).
			await meterMeetingAudio(env, meetingId, usageDay(now), seconds);
			return { ok: true };
		},
		(work) => c.executionCtx.waitUntil(work),
	);
});
