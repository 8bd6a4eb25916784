import { inArray } from "drizzle-orm";
import { readInIdChunks } from "../db/id-chunks";
import { type MediaFileRow, mediaFiles, type RecordingRow, recordings } from "../db/schema";
import type { Env } from "../env";
import { db } from "../meetings/meeting-store";

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
