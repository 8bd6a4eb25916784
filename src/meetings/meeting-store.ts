import { and, desc, eq, inArray, notInArray, type SQL, sql } from "drizzle-orm";
import type { RecordingStopReason } from "../bot-channel/protocol";
import { type RecordingConfig, recordingPlan } from "../bots/recording-config";
import { db } from "../db";
import { readInIdChunks } from "../db/id-chunks";
import { type MeetingRow, meetings, workspaceMembers } from "../db/schema";
import type { Env } from "../env";
import type { RecordingView } from "../recordings/recording-store";
import type { TranscriptionFallback } from "../shapes/transcription";
import { patchMeetingData } from "./meeting-data";
import { type MeetingStatus, PLANNED_STATUSES, TERMINAL_STATUSES } from "./status-machine";

/** Drizzle store: D1 access to meeting records (their `data` keys through meeting-data.ts), and the one place a record becomes its API shape. */

/** Meetings a user may read: their own, and those bound to a workspace they belong to. */
export function readableBy(userId: number): SQL {
	return sql`(${meetings.userId} = ${userId} OR ${meetings.workspaceId} IN (SELECT workspace_id FROM workspace_members WHERE user_id = ${userId}))`;
}

export async function isWorkspaceMember(env: Env, userId: number, workspaceId: string): Promise<boolean> {
	const row = await db(env)
		.select({ userId: workspaceMembers.userId })
		.from(workspaceMembers)
		.where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
		.get();
	return row !== undefined;
}

/** Of some meeting ids, those the user may still read. */
export async function readableAmong(env: Env, userId: number, meetingIds: number[]): Promise<Set<number>> {
	const rows = await readInIdChunks(meetingIds, (ids) =>
		db(env)
			.select({ id: meetings.id })
			.from(meetings)
			.where(and(inArray(meetings.id, ids), readableBy(userId)))
			.all(),
	);
	return new Set(rows.map((row) => row.id));
}

/** Of some users, those who may read one meeting (readableBy's rule): one query for the meeting, then the members in chunks. */
export async function readersAmong(env: Env, meetingId: number, userIds: number[]): Promise<Set<number>> {
	const row = await db(env)
		.select({ userId: meetings.userId, workspaceId: meetings.workspaceId })
		.from(meetings)
		.where(eq(meetings.id, meetingId))
		.get();
	if (!row) return new Set();
	const { workspaceId } = row;
	const members = workspaceId
		? await readInIdChunks(userIds, (ids) =>
				db(env)
					.select({ userId: workspaceMembers.userId })
					.from(workspaceMembers)
					.where(and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.userId, ids)))
					.all(),
			)
		: [];
	const readers = new Set(members.map((member) => member.userId));
	if (userIds.includes(row.userId)) readers.add(row.userId);
	return readers;
}

export async function findReadableMeeting(env: Env, userId: number, meetingId: number): Promise<MeetingRow | undefined> {
	return db(env)
		.select()
		.from(meetings)
		.where(and(eq(meetings.id, meetingId), readableBy(userId)))
		.get();
}

export async function findOwnedMeeting(env: Env, userId: number, meetingId: number): Promise<MeetingRow | undefined> {
	return db(env)
		.select()
		.from(meetings)
		.where(and(eq(meetings.id, meetingId), eq(meetings.userId, userId)))
		.get();
}

/**
 * The readable meeting on a link: the caller's own first, then the newest, so a meeting someone
 * else binds to a shared workspace never hides the caller's own. `started` skips plans that
 * never had a bot.
 */
export async function findMeetingOnLink(
	env: Env,
	userId: number,
	/** null: any platform (a native id alone, as the meeting stream may be given). */
	platform: string | null,
	nativeId: string,
	options: { started?: boolean; ownedOnly?: boolean } = {},
): Promise<MeetingRow | undefined> {
	const conditions = [eq(meetings.nativeMeetingId, nativeId), options.ownedOnly ? eq(meetings.userId, userId) : readableBy(userId)];
	if (platform !== null) conditions.push(eq(meetings.platform, platform));
	if (options.started) conditions.push(notInArray(meetings.status, [...PLANNED_STATUSES]));
	return db(env)
		.select()
		.from(meetings)
		.where(and(...conditions))
		.orderBy(sql`CASE WHEN ${meetings.userId} = ${userId} THEN 0 ELSE 1 END`, desc(meetings.id))
		.get();
}

/** The user's one non-terminal meeting on a link, if any (the partial unique index keeps it one). */
export async function findOpenMeetingOnLink(env: Env, userId: number, platform: string, nativeId: string): Promise<MeetingRow | undefined> {
	return db(env)
		.select()
		.from(meetings)
		.where(
			and(
				eq(meetings.userId, userId),
				eq(meetings.platform, platform),
				eq(meetings.nativeMeetingId, nativeId),
				notInArray(meetings.status, [...TERMINAL_STATUSES]),
			),
		)
		.get();
}

export const nowIso = () => new Date().toISOString();

/**
 * The session uid the agent plane keys a meeting by (routine events, the meeting stream): its
 * native id, the copilot's identity rule, or its own id for a meeting without a link.
 */
export const sessionUidOf = (row: Pick<MeetingRow, "id" | "nativeMeetingId">): string => row.nativeMeetingId ?? String(row.id);

/** The meeting record as clients see it (docs/api.md#the-meeting-record). */
export function meetingView(row: MeetingRow, recordings: RecordingView[] = []) {
	// Existing clients read the outcome inside `data` too (the reference stores it there once set).
	const data: Record<string, unknown> = { ...row.data };
	if (row.completionReason) data.completion_reason = row.completionReason;
	if (row.failureStage) data.failure_stage = row.failureStage;
	if (row.scheduledAt) data.scheduled_at = row.scheduledAt;
	if (Array.isArray(data.calendar_sources)) {
		data.calendar_sources = (data.calendar_sources as Record<string, unknown>[]).map(({ id, name, auto_join, bot_name }) => ({
			id,
			name,
			auto_join,
			bot_name,
		}));
	}
	return {
		id: row.id,
		user_id: row.userId,
		platform: row.platform,
		native_meeting_id: row.nativeMeetingId,
		// The live copilot's identity rule: meeting_id == session_uid == native_id.
		session_uid: row.nativeMeetingId,
		constructed_meeting_url: row.constructedMeetingUrl,
		status: row.status,
		bot_container_id: row.status === "idle" || row.status === "scheduled" ? null : `bot-${row.id}`,
		start_time: row.startTime,
		end_time: row.endTime,
		completion_reason: row.completionReason,
		failure_stage: row.failureStage,
		workspace_id: row.workspaceId,
		auto_join: row.autoJoin,
		notes: typeof data.notes === "string" ? data.notes : null,
		// What its bot records, as the spawn tells it (POST /bots recording_enabled and recording_config); null: no recording.
		recording_plan:
			row.botOptions.recording_enabled === true ? recordingPlan(row.botOptions.recording_config as RecordingConfig | null) : null,
		recordings,
		data,
		created_at: row.createdAt,
		updated_at: row.updatedAt,
	};
}
export type MeetingView = ReturnType<typeof meetingView>;

/** Records by id, in chunks of ids D1 accepts (a calendar's plans). */
export async function meetingsById(env: Env, ids: number[]): Promise<Map<number, MeetingRow>> {
	const rows = await readInIdChunks(ids, (chunk) => db(env).select().from(meetings).where(inArray(meetings.id, chunk)).all());
	return new Map(rows.map((row) => [row.id, row]));
}

/** Which of the ids name meetings that have not ended (a cap may be set up to 1,000: the ids go in chunks). */
export async function openMeetingIds(env: Env, ids: number[]): Promise<Set<number>> {
	const rows = await readInIdChunks(ids, (chunk) =>
		db(env)
			.select({ id: meetings.id })
			.from(meetings)
			.where(and(inArray(meetings.id, chunk), notInArray(meetings.status, [...TERMINAL_STATUSES])))
			.all(),
	);
	return new Set(rows.map((row) => row.id));
}

/** A user's own meetings that have not ended (what a calendar sync may plan over). */
export async function openMeetingsOf(env: Env, userId: number): Promise<MeetingRow[]> {
	return db(env)
		.select()
		.from(meetings)
		.where(and(eq(meetings.userId, userId), notInArray(meetings.status, [...TERMINAL_STATUSES])))
		.all();
}

/** Replaces a meeting's `bot_options` (a live bot's new language or task). */
export async function setBotOptions(env: Env, meetingId: number, botOptions: MeetingRow["botOptions"]): Promise<void> {
	await db(env).update(meetings).set({ botOptions }).where(eq(meetings.id, meetingId));
}

/** The owner and status of a meeting, for internal bot calls that act for its owner while it is live. */
export async function meetingOwnerAndStatus(env: Env, meetingId: number): Promise<{ userId: number; status: MeetingStatus } | undefined> {
	const row = await db(env)
		.select({ userId: meetings.userId, status: meetings.status })
		.from(meetings)
		.where(eq(meetings.id, meetingId))
		.get();
	return row && { userId: row.userId, status: row.status as MeetingStatus };
}

/** A meeting's owner, status and the transcription engine its bot was launched with (`data.transcription_engine`). */
export async function meetingTranscriptionEngine(
	env: Env,
	meetingId: number,
): Promise<{ userId: number; status: MeetingStatus; engine: string | null } | undefined> {
	const row = await db(env)
		.select({ userId: meetings.userId, status: meetings.status, data: meetings.data })
		.from(meetings)
		.where(eq(meetings.id, meetingId))
		.get();
	const engine = row?.data?.transcription_engine;
	return row && { userId: row.userId, status: row.status as MeetingStatus, engine: typeof engine === "string" ? engine : null };
}

/** Notes in the record's `data.transcription_fallback` that the bot's engine could not start, and why. */
export async function noteTranscriptionFallback(env: Env, meetingId: number, fallback: TranscriptionFallback): Promise<void> {
	await patchMeetingData(env, meetingId, { transcription_fallback: fallback });
}

/** Notes in the record's `data.recording_stopped` why the bot stopped recording early. */
export async function noteRecordingStopped(
	env: Env,
	meetingId: number,
	stopped: { reason: RecordingStopReason; at: string; bytes: number },
): Promise<void> {
	await patchMeetingData(env, meetingId, { recording_stopped: stopped });
}
