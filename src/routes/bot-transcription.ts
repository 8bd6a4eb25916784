import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { channelAttempt } from "../bot-channel/channel-token";
import { audioSecondsOf, meterAccountAudio, usageDay } from "../bots/relay-meter";
import { relayTranscription } from "../bots/transcription-relay";
import { ApiError } from "../errors";
import { meetingOwnerAndStatus } from "../meetings/meeting-store";
import { isLive } from "../meetings/status-machine";
import { meetingRoom } from "../objects";
import { loadSettings, resolveSettings } from "../settings/account-settings";
import { meterMeetingAudio } from "../usage/usage-store";

/**
 * The bot's transcription endpoint (docs/bot-channel.md#transcription): OpenAI-compatible, so
 * the bot's transcriber calls it as it would any provider, with its channel token. The body is
 * bounded by the gateway's body limit (MAX_BODY_BYTES); the Worker adds the account's token.
 * Only the current attempt's bot is served, and its audio is metered per meeting and per
 * account (src/bots/relay-meter.ts) before any provider is called.
 */
export const botTranscriptionRoutes = new Hono<AppEnv>();

botTranscriptionRoutes.post("/internal/bot-channel/:meeting_id/audio/transcriptions", async (c) => {
	const { meetingId, attempt } = await channelAttempt(
		c.env.SECRETS_KEY,
		c.req.param("meeting_id"),
		c.req.header("authorization"),
		"bot channel",
	);
	const contentType = c.req.header("content-type") ?? "";
	if (!/^multipart\/form-data\s*;/i.test(contentType)) throw new ApiError(415, "The body must be multipart/form-data");
	const meeting = await meetingOwnerAndStatus(c.env, meetingId);
	if (!meeting || !isLive(meeting.status)) throw new ApiError(409, "The meeting is not live");
	let settings: Awaited<ReturnType<typeof resolveSettings>>;
	try {
		settings = await resolveSettings(c.env, await loadSettings(c.env, meeting.userId));
	} catch {
		// A stored secret that no longer opens (SECRETS_KEY rotated): nothing the bot can fix.
		throw new ApiError(503, "The account's transcription settings cannot be read");
	}
	const body = await c.req.arrayBuffer();
	const seconds = await audioSecondsOf(body, contentType);
	// The room first: a replaced bot's token is refused before anything is counted for the account.
	const allowed = await meetingRoom(c.env, meetingId).meterTranscription(attempt, seconds);
	if (!allowed.ok) throw new ApiError(allowed.status, allowed.detail);
	const now = c.get("clock").now();
	await meterAccountAudio(c.env, meeting.userId, seconds, now);
	// The meeting's share of the account's count, for its usage row (docs/api.md#usage).
	await meterMeetingAudio(c.env, meetingId, usageDay(now), seconds);
	return relayTranscription(c.env, settings.transcription, body, contentType);
});
