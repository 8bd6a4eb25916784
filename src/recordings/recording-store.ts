/** Drizzle store: recordings and their media files (rows; the bytes are in R2). */
import { z } from "@hono/zod-openapi";
import { and, asc, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { db } from "../db";
import { readInIdChunks } from "../db/id-chunks";
import { type MediaFileRow, mediaFileParts, mediaFiles, meetings, type RecordingRow, recordings } from "../db/schema";
import type { Env } from "../env";
import type { UploadTarget } from "./upload-rules";

export function mediaFileView(row: MediaFileRow) {
	return {
		id: row.id,
		type: row.type,
		format: row.format,
		storage_backend: row.storageBackend,
		file_size_bytes: row.fileSizeBytes,
		duration_seconds: row.durationSeconds,
		metadata: row.metadata,
		created_at: row.createdAt,
	};
}

export function recordingView(row: RecordingRow, files: MediaFileRow[]) {
	return {
		id: row.id,
		meeting_id: row.meetingId,
		user_id: row.userId,
		session_uid: row.sessionUid,
		source: row.source,
		status: row.status,
		error_message: row.errorMessage,
		created_at: row.createdAt,
		completed_at: row.completedAt,
		media_files: files.filter((f) => f.recordingId === row.id).map(mediaFileView),
	};
}
export type RecordingView = ReturnType<typeof recordingView>;

/** The media files of some recordings, oldest first. */
export async function mediaFilesOf(env: Env, recordingIds: number[]): Promise<MediaFileRow[]> {
	const files = await readInIdChunks(recordingIds, (ids) =>
		db(env).select().from(mediaFiles).where(inArray(mediaFiles.recordingId, ids)).all(),
	);
	return files.sort((a, b) => a.id - b.id);
}

/** The recordings of some meetings, with their media files, grouped by meeting id. */
export async function recordingsOfMeetings(env: Env, meetingIds: number[]): Promise<Map<number, RecordingView[]>> {
	const byMeeting = new Map<number, RecordingView[]>();
	const rows = await readInIdChunks(meetingIds, (ids) => db(env).select().from(recordings).where(inArray(recordings.meetingId, ids)).all());
	rows.sort((a, b) => a.id - b.id);
	const files = await mediaFilesOf(
		env,
		rows.map((r) => r.id),
	);
	for (const row of rows) {
		const list = byMeeting.get(row.meetingId) ?? [];
		list.push(recordingView(row, files));
		byMeeting.set(row.meetingId, list);
	}
	return byMeeting;
}

/** The filters of GET /recordings; the MCP list_recordings tool takes the same. */
export const ListRecordingsQuery = z.object({
	limit: z.coerce.number().int().min(1).max(500).default(50),
	offset: z.coerce.number().int().min(0).default(0),
	meeting_id: z.coerce.number().int().positive().optional(),
});
export type ListRecordingsQuery = z.infer<typeof ListRecordingsQuery>;

/** The owner's recordings with their media files, newest first (GET /recordings). */
export async function listRecordings(env: Env, owner: { userId: number }, q: ListRecordingsQuery): Promise<RecordingView[]> {
	const conditions: SQL[] = [eq(recordings.userId, owner.userId)];
	if (q.meeting_id) conditions.push(eq(recordings.meetingId, q.meeting_id));
	const rows = await db(env)
		.select()
		.from(recordings)
		.where(and(...conditions))
		.orderBy(desc(recordings.id))
		.limit(q.limit)
		.offset(q.offset)
		.all();
	const files = await mediaFilesOf(
		env,
		rows.map((r) => r.id),
	);
	return rows.map((r) => recordingView(r, files));
}

/**
 * Deletes a recording's stored objects, best-effort: DELETE /recordings removes its rows even
 * when the bucket refuses (docs/api.md#recordings: "its stored media best-effort"). A thousand
 * keys a call (R2's most); if one fails, one call per key of it, so a key the bucket refuses strands only itself. Returns the
 * keys left behind, for the log.
 */
export async function deleteStoredMedia(bucket: R2Bucket, keys: string[]): Promise<string[]> {
	const left: string[] = [];
	// R2 deletes at most 1,000 keys a call (a streamed file may have thousands of parts).
	for (let at = 0; at < keys.length; at += 1000) {
		const chunk = keys.slice(at, at + 1000);
		try {
			await bucket.delete(chunk);
			continue;
		} catch {
			// One refused key fails the whole call: retried key by key below.
		}
		for (const key of chunk) {
			try {
				await bucket.delete(key);
			} catch {
				left.push(key);
			}
		}
	}
	return left;
}

/**
 * What the upload rules need of the meeting a bot uploads for (one flag inside `bot_options`, as
 * json_extract gives it), and its `recording_config` (JSON text) for the files' metadata.
 */
export async function uploadTargetOf(
	env: Env,
	meetingId: number,
): Promise<(UploadTarget & { id: number; user_id: number; recording_config: string | null }) | null> {
	const row = await db(env)
		.select({
			id: meetings.id,
			user_id: meetings.userId,
			status: meetings.status,
			end_time: meetings.endTime,
			recording_enabled: sql<number | null>`json_extract(${meetings.botOptions}, '$.recording_enabled')`,
			recording_config: sql<string | null>`json_extract(${meetings.botOptions}, '$.recording_config')`,
		})
		.from(meetings)
		.where(eq(meetings.id, meetingId))
		.get();
	return row ?? null;
}

/**
 * THE place a recording's rows are deleted, by DELETE /recordings, a meeting's deletion and the
 * retention sweep alike (docs/retention.md): its files' parts, its media files, then the
 * recordings. A table that keeps rows of a recording adds its statement here, before the recordings' own.
 */
export function recordingRowDeletes(env: Env, recordingIds: number[]) {
	const orm = db(env);
	const files = orm.select({ id: mediaFiles.id }).from(mediaFiles).where(inArray(mediaFiles.recordingId, recordingIds));
	return [
		orm.delete(mediaFileParts).where(inArray(mediaFileParts.mediaFileId, files)),
		orm.delete(mediaFiles).where(inArray(mediaFiles.recordingId, recordingIds)),
		orm.delete(recordings).where(inArray(recordings.id, recordingIds)),
	] as const;
}

/** Deletes a recording's rows, its media files and their parts with it, in one batch. */
export async function deleteRecordingRows(env: Env, recordingId: number): Promise<void> {
	await db(env).batch(recordingRowDeletes(env, [recordingId]));
}

/** Claims a bot attempt's one upload: the new recording's id (a second claim fails on the UNIQUE key, see `isUniqueViolation`). */
export async function reserveRecording(env: Env, values: typeof recordings.$inferInsert): Promise<number | undefined> {
	const row = await db(env).insert(recordings).values(values).returning({ id: recordings.id }).get();
	return row?.id;
}

/** Gives back a reserved upload that stored nothing. */
export async function dropRecording(env: Env, recordingId: number): Promise<void> {
	await db(env).delete(recordings).where(eq(recordings.id, recordingId)).run();
}

/** Marks a recording complete and stores its media file; the file as stored. */
export async function completeRecording(
	env: Env,
	recordingId: number,
	completedAt: string,
	file: typeof mediaFiles.$inferInsert,
): Promise<MediaFileRow | undefined> {
	await db(env).update(recordings).set({ status: "completed", completedAt }).where(eq(recordings.id, recordingId)).run();
	return db(env).insert(mediaFiles).values(file).returning().get();
}

/** Stores a media file of a recording that stays as it is (a WAV joining a recording streamed in parts). */
export async function addMediaFile(env: Env, file: typeof mediaFiles.$inferInsert): Promise<MediaFileRow | undefined> {
	return db(env).insert(mediaFiles).values(file).returning().get();
}

/** A user's recording with its media files (oldest first); undefined when they own no such recording. */
export async function ownedRecordingRows(
	env: Env,
	userId: number,
	recordingId: number,
): Promise<{ recording: RecordingRow; files: MediaFileRow[] } | undefined> {
	const recording = await db(env)
		.select()
		.from(recordings)
		.where(and(eq(recordings.id, recordingId), eq(recordings.userId, userId)))
		.get();
	if (!recording) return undefined;
	const files = await db(env).select().from(mediaFiles).where(eq(mediaFiles.recordingId, recording.id)).orderBy(asc(mediaFiles.id)).all();
	return { recording, files };
}

export async function findMediaFile(env: Env, mediaFileId: number): Promise<MediaFileRow | undefined> {
	return db(env).select().from(mediaFiles).where(eq(mediaFiles.id, mediaFileId)).get();
}
