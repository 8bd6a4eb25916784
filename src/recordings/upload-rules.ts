import { channelAttempt } from "../bot-channel/channel-token";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { isLive, isTerminal, type MeetingStatus } from "../meetings/status-machine";
import { setting } from "../settings/deployment-defaults";

/** The largest upload, WAV header included (MAX_RECORDING_BYTES); the spawn tells the bot, which stops recording before it. */
export const maxRecordingBytes = (env: Env): number => setting(env, "MAX_RECORDING_BYTES");

/** How long after its meeting ended a bot may still upload (RECORDING_UPLOAD_GRACE_S). */
export const uploadGraceS = (env: Env): number => setting(env, "RECORDING_UPLOAD_GRACE_S");

export interface UploadTarget {
	status: string;
	end_time: string | null;
	/** `bot_options.recording_enabled` as SQLite's json_extract gives it (1 for true). */
	recording_enabled: number | null;
}

/** Why this meeting takes no recording upload now; null when it does. */
export function uploadRefusal(meeting: UploadTarget, graceS: number, nowMs = Date.now()): ApiError | null {
	if (meeting.recording_enabled !== 1) return new ApiError(403, "Recording was not enabled for this meeting");
	const status = meeting.status as MeetingStatus;
	if (isLive(status)) return null;
	if (!isTerminal(status)) return new ApiError(409, "The meeting has no bot that could have recorded it");
	const ended = Date.parse(meeting.end_time ?? "");
	if (Number.isFinite(ended) && nowMs <= ended + graceS * 1000) return null;
	return new ApiError(410, `The meeting ended more than ${graceS} s ago: its recording upload is closed`);
}

/**
 * The meeting and the bot attempt an upload comes from: any attempt's channel token of this
 * meeting is taken (a replaced bot's recording is still the meeting's, docs/bot-channel.md);
 * 401 otherwise.
 */
export function uploadingAttempt(env: Env, meetingIdParam: string, authorization: string | undefined) {
	return channelAttempt(env.SECRETS_KEY, meetingIdParam, authorization, "recording upload");
}
