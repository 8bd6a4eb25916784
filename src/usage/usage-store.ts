/**
 * Raw SQL store (the figures are sums over unions of files and parts, and the caps an upsert of one row): what an account used
 * (docs/api.md#usage). Bot time is read as the meeting records' times (usage-figures.ts cuts
 * them); transcription is what the relay counted (src/bots/relay-meter.ts), per account and day
 * and, since migration 0023, per meeting and day; storage is what D1 says is in R2 for the
 * account's recordings: a streamed file's parts as each was stored, a single file as a whole.
 */
import type { Env } from "../env";
import { LIVE_STATUSES } from "../meetings/status-machine";
import type { BotTimes } from "./usage-figures";

/** A meeting whose bot ran in a range, with what the usage rows show of it. */
export interface MeetingTimesRow extends BotTimes {
	meeting_id: number;
	platform: string;
	native_meeting_id: string | null;
	status: string;
	title: string | null;
}

type StoredTimesRow = Omit<MeetingTimesRow, "live">;

const LIVE_STATUSES_SQL = `(${LIVE_STATUSES.map((s) => `'${s}'`).join(",")})`;

/** When a meeting's bot began: its join, or its admission for records from before `joining_at` was kept. */
const BEGAN = "coalesce(joining_at, start_time)";
const MEETING_TIMES = `id AS meeting_id, platform, native_meeting_id, status, joining_at, start_time, end_time,
	json_extract(data, '$.title') AS title, status IN ${LIVE_STATUSES_SQL} AS live, ${BEGAN} AS began`;

/**
 * Every stored object of the account's recordings, with its meeting, bytes and when it was
 * stored: a streamed file's parts, or a file stored whole (one with no parts).
 */
const STORED_OBJECTS = `
	SELECT r.meeting_id, p.bytes, p.created_at FROM media_file_parts p
		JOIN media_files f ON f.id = p.media_file_id JOIN recordings r ON r.id = f.recording_id WHERE r.user_id = ?1
	UNION ALL
	SELECT r.meeting_id, f.file_size_bytes AS bytes, f.created_at FROM media_files f JOIN recordings r ON r.id = f.recording_id
		WHERE r.user_id = ?1 AND NOT EXISTS (SELECT 1 FROM media_file_parts p WHERE p.media_file_id = f.id)`;

/** The statements that read usage, named so a test can check that each reads through an index (test/worker/usage/usage-plans.test.ts). */
export const USAGE_SQL = {
	// Two halves, each a range of the (user_id, end_time) index: ended since the range began, and not ended.
	meetingTimes: `SELECT ${MEETING_TIMES} FROM meetings WHERE user_id = ?1 AND end_time >= ?2 AND ${BEGAN} < ?3
		UNION ALL
		SELECT ${MEETING_TIMES} FROM meetings WHERE user_id = ?1 AND end_time IS NULL AND ${BEGAN} < ?3
		ORDER BY began DESC, meeting_id DESC`,
	transcriptionPerDay: "SELECT day, seconds FROM transcription_usage WHERE user_id = ?1 AND day BETWEEN ?2 AND ?3",
	transcriptionPerMeeting: `SELECT meeting_id, SUM(seconds) AS seconds FROM transcription_usage_meetings
		 WHERE meeting_id IN (SELECT value FROM json_each(?1)) AND day BETWEEN ?2 AND ?3 GROUP BY meeting_id`,
	storedBytes: `SELECT COALESCE(SUM(bytes), 0) AS bytes FROM (${STORED_OBJECTS})`,
	storedBytesPerDay: `SELECT substr(created_at, 1, 10) AS day, SUM(bytes) AS bytes FROM (${STORED_OBJECTS})
		 WHERE created_at >= ?2 AND created_at < ?3 GROUP BY day`,
	storedBytesPerMeeting: `SELECT meeting_id, SUM(bytes) AS bytes FROM (${STORED_OBJECTS})
		 WHERE meeting_id IN (SELECT value FROM json_each(?2)) GROUP BY meeting_id`,
};

/**
 * The account's meetings whose bot ran at some time in [fromIso, toIso): began its join (or was
 * admitted) before the range ends, and has not ended before it starts. Newest first.
 */
export async function meetingTimesBetween(env: Env, userId: number, fromIso: string, toIso: string): Promise<MeetingTimesRow[]> {
	const { results } = await env.DB.prepare(USAGE_SQL.meetingTimes)
		.bind(userId, fromIso, toIso)
		.all<StoredTimesRow & { live: number; began: string }>();
	return results.map(({ began: _began, ...row }) => ({
		...row,
		title: typeof row.title === "string" ? row.title : null,
		live: row.live === 1,
	}));
}

/** The account's relayed audio per UTC day in [firstDay, lastDay], in seconds. */
export async function transcriptionSecondsPerDay(
	env: Env,
	userId: number,
	firstDay: string,
	lastDay: string,
): Promise<Map<string, number>> {
	const { results } = await env.DB.prepare(USAGE_SQL.transcriptionPerDay)
		.bind(userId, firstDay, lastDay)
		.all<{ day: string; seconds: number }>();
	return new Map(results.map((r) => [r.day, r.seconds]));
}

/** Each meeting's relayed audio over the days [firstDay, lastDay], in seconds. */
export async function transcriptionSecondsPerMeeting(
	env: Env,
	meetingIds: readonly number[],
	firstDay: string,
	lastDay: string,
): Promise<Map<number, number>> {
	if (meetingIds.length === 0) return new Map();
	const { results } = await env.DB.prepare(USAGE_SQL.transcriptionPerMeeting)
		.bind(JSON.stringify(meetingIds), firstDay, lastDay)
		.all<{ meeting_id: number; seconds: number }>();
	return new Map(results.map((r) => [r.meeting_id, r.seconds]));
}

/** Adds relayed seconds to the meeting's count for the day (after the account's own count took them). */
export async function meterMeetingAudio(env: Env, meetingId: number, day: string, seconds: number): Promise<void> {
	await env.DB.prepare(
		`INSERT INTO transcription_usage_meetings (meeting_id, day, seconds) VALUES (?1, ?2, ?3)
		 ON CONFLICT (meeting_id, day) DO UPDATE SET seconds = transcription_usage_meetings.seconds + excluded.seconds`,
	)
		.bind(meetingId, day, seconds)
		.run();
}

/** Bytes the account has stored now. */
export async function storedBytes(env: Env, userId: number): Promise<number> {
	const row = await env.DB.prepare(USAGE_SQL.storedBytes).bind(userId).first<{ bytes: number }>();
	return row?.bytes ?? 0;
}

/** Bytes still stored, by the UTC day they were stored on, for [fromIso, toIso). */
export async function storedBytesPerDay(env: Env, userId: number, fromIso: string, toIso: string): Promise<Map<string, number>> {
	const { results } = await env.DB.prepare(USAGE_SQL.storedBytesPerDay).bind(userId, fromIso, toIso).all<{ day: string; bytes: number }>();
	return new Map(results.map((r) => [r.day, r.bytes]));
}

/** Bytes stored now for each of the meetings. */
export async function storedBytesPerMeeting(env: Env, userId: number, meetingIds: readonly number[]): Promise<Map<number, number>> {
	if (meetingIds.length === 0) return new Map();
	const { results } = await env.DB.prepare(USAGE_SQL.storedBytesPerMeeting)
		.bind(userId, JSON.stringify(meetingIds))
		.all<{ meeting_id: number; bytes: number }>();
	return new Map(results.map((r) => [r.meeting_id, r.bytes]));
}

/** An account's caps; null is no cap. */
export interface UsageCaps {
	bot_minutes_per_day: number | null;
	bot_minutes_per_month: number | null;
	storage_bytes: number | null;
}

export const NO_CAPS: UsageCaps = { bot_minutes_per_day: null, bot_minutes_per_month: null, storage_bytes: null };

export async function readUsageCaps(env: Env, userId: number): Promise<UsageCaps> {
	const row = await env.DB.prepare("SELECT bot_minutes_per_day, bot_minutes_per_month, storage_bytes FROM usage_caps WHERE user_id = ?")
		.bind(userId)
		.first<UsageCaps>();
	return row ?? NO_CAPS;
}

/** Sets every cap at once (a null clears one); no caps at all leaves no row. */
export async function writeUsageCaps(env: Env, userId: number, caps: UsageCaps, nowIso: string): Promise<void> {
	if (caps.bot_minutes_per_day === null && caps.bot_minutes_per_month === null && caps.storage_bytes === null) {
		await env.DB.prepare("DELETE FROM usage_caps WHERE user_id = ?").bind(userId).run();
		return;
	}
	await env.DB.prepare(
		`INSERT INTO usage_caps (user_id, bot_minutes_per_day, bot_minutes_per_month, storage_bytes, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
		 ON CONFLICT (user_id) DO UPDATE SET bot_minutes_per_day = ?2, bot_minutes_per_month = ?3, storage_bytes = ?4, updated_at = ?5`,
	)
		.bind(userId, caps.bot_minutes_per_day, caps.bot_minutes_per_month, caps.storage_bytes, nowIso)
		.run();
}
