/**
 * Drizzle store: recordings streamed in parts (docs/bot-channel.md#recording-parts). A streamed
 * media file is parts 1..`media_files.parts` in order; its size and length follow the parts as
 * they come (the longest run from part 1 with no gap), and are set exactly when it completes.
 */
import { and, asc, eq, gt, inArray, lte, sql } from "drizzle-orm";
import type { RecordingPartType } from "../bot-channel/protocol";
import { db, isUniqueViolation } from "../db";
import {
	type MediaFilePartRow,
	type MediaFileRow,
	mediaFileParts,
	mediaFiles,
	meetings,
	type RecordingRow,
	recordings,
} from "../db/schema";
import type { Env } from "../env";
import { TERMINAL_STATUSES } from "../meetings/status-machine";

/** Where a streamed file's parts live: under its recording's meeting, so deleting by that prefix takes them. */
export const streamPrefix = (userId: number, meetingId: number, recordingId: number, type: RecordingPartType) =>
	`recordings/${userId}/${meetingId}/streams/${recordingId}/${type}/`;
/** Fixed per (file, part): a re-PUT overwrites its object instead of leaving the old one behind. */
export const partKey = (file: Pick<MediaFileRow, "storageKey">, n: number) => `${file.storageKey}${String(n).padStart(5, "0")}.webm`;

export interface AttemptRef {
	meetingId: number;
	attempt: number;
}

/** The recording of a bot attempt, if it has one (one per attempt: migrations/0010). */
export async function attemptRecording(env: Env, ref: AttemptRef): Promise<RecordingRow | undefined> {
	return db(env)
		.select()
		.from(recordings)
		.where(and(eq(recordings.meetingId, ref.meetingId), eq(recordings.botAttempt, ref.attempt)))
		.get();
}

/** The attempt's recording, made `in_progress` by its first part; two first parts at once find the same one. */
export async function openAttemptRecording(env: Env, ref: AttemptRef & { userId: number }, now: string): Promise<RecordingRow> {
	const found = await attemptRecording(env, ref);
	if (found) return found;
	try {
		const row = await db(env)
			.insert(recordings)
			.values({
				meetingId: ref.meetingId,
				userId: ref.userId,
				sessionUid: String(ref.meetingId),
				source: "bot",
				status: "in_progress",
				createdAt: now,
				botAttempt: ref.attempt,
			})
			.returning()
			.get();
		if (row) return row;
	} catch (err) {
		if (!isUniqueViolation(err)) throw err;
	}
	const raced = await attemptRecording(env, ref);
	if (!raced) throw new Error("recording of the attempt neither inserted nor found");
	return raced;
}

/**
 * The attempt's recording when it was opened by streamed parts and has no audio file yet: a bot
 * recording video with `audio_format: "wav"` streams the video and uploads its WAV to it.
 */
export async function streamedRecordingAwaitingAudio(env: Env, ref: AttemptRef): Promise<RecordingRow | undefined> {
	const recording = await attemptRecording(env, ref);
	if (!recording) return undefined;
	const files = await db(env).select().from(mediaFiles).where(eq(mediaFiles.recordingId, recording.id)).all();
	const streamed = files.some((f) => f.parts !== null);
	return streamed && !files.some((f) => f.type === "audio") ? recording : undefined;
}

/** The recording's streamed file of a type, if any. */
export async function streamedFile(env: Env, recordingId: number, type: RecordingPartType): Promise<MediaFileRow | undefined> {
	return db(env)
		.select()
		.from(mediaFiles)
		.where(and(eq(mediaFiles.recordingId, recordingId), eq(mediaFiles.type, type), sql`${mediaFiles.parts} IS NOT NULL`))
		.get();
}

/** The recording's streamed file of a type, made by its first part (WebM, nothing in it yet). */
export async function openStreamedFile(
	env: Env,
	recording: RecordingRow,
	type: RecordingPartType,
	metadata: Record<string, unknown>,
	now: string,
): Promise<MediaFileRow> {
	const found = await streamedFile(env, recording.id, type);
	if (found) return found;
	try {
		const row = await db(env)
			.insert(mediaFiles)
			.values({
				recordingId: recording.id,
				type,
				format: "webm",
				storageBackend: "r2",
				storageKey: streamPrefix(recording.userId, recording.meetingId, recording.id, type),
				fileSizeBytes: 0,
				durationSeconds: 0,
				metadata,
				createdAt: now,
				parts: 0,
				status: "in_progress",
			})
			.returning()
			.get();
		if (row) return row;
	} catch (err) {
		if (!isUniqueViolation(err)) throw err;
	}
	const raced = await streamedFile(env, recording.id, type);
	if (!raced) throw new Error("streamed file neither inserted nor found");
	return raced;
}

const partsOfFile = (fileId: number) => sql`(SELECT 1 FROM ${mediaFileParts} WHERE ${mediaFileParts.mediaFileId} = ${fileId}`;

/**
 * Parts 1..k stored with no gap: k is the first part whose successor is missing (0 without part 1).
 * Each probe is a primary-key lookup.
 */
const gaplessRun = (fileId: number) => sql`(CASE WHEN EXISTS ${partsOfFile(fileId)} AND part_number = 1) THEN
	(SELECT MIN(p.part_number) FROM media_file_parts p WHERE p.media_file_id = ${fileId}
		AND NOT EXISTS (SELECT 1 FROM media_file_parts q WHERE q.media_file_id = p.media_file_id AND q.part_number = p.part_number + 1))
	ELSE 0 END)`;

/** A file in progress takes the size and length of its gapless run of parts. */
const followParts = (env: Env, fileId: number) =>
	db(env)
		.update(mediaFiles)
		.set({
			parts: gaplessRun(fileId),
			fileSizeBytes: sql`(SELECT COALESCE(SUM(bytes), 0) FROM media_file_parts WHERE media_file_id = ${fileId} AND part_number <= ${gaplessRun(fileId)})`,
			durationSeconds: sql`COALESCE((SELECT media_seconds FROM media_file_parts WHERE media_file_id = ${fileId} AND part_number = ${gaplessRun(fileId)}), 0)`,
		})
		.where(and(eq(mediaFiles.id, fileId), eq(mediaFiles.status, "in_progress")));

/** Stores (or replaces) a part's row, and the file follows its parts, in one batch. */
export async function recordPart(env: Env, part: typeof mediaFileParts.$inferInsert): Promise<void> {
	const orm = db(env);
	await orm.batch([
		orm
			.insert(mediaFileParts)
			.values(part)
			.onConflictDoUpdate({
				target: [mediaFileParts.mediaFileId, mediaFileParts.partNumber],
				set: { storageKey: part.storageKey, bytes: part.bytes, mediaSeconds: part.mediaSeconds, createdAt: part.createdAt },
			}),
		followParts(env, part.mediaFileId),
	]);
}

/** A file's parts that make it up (1..`parts`), in order. */
export async function filePartsInOrder(env: Env, file: MediaFileRow): Promise<MediaFilePartRow[]> {
	return db(env)
		.select()
		.from(mediaFileParts)
		.where(and(eq(mediaFileParts.mediaFileId, file.id), lte(mediaFileParts.partNumber, file.parts ?? 0)))
		.orderBy(asc(mediaFileParts.partNumber))
		.all();
}

/** Every part row of some files (beyond their run too): what a delete must remove. */
export async function allPartsOf(env: Env, fileIds: number[]): Promise<MediaFilePartRow[]> {
	if (fileIds.length === 0) return [];
	return db(env).select().from(mediaFileParts).where(inArray(mediaFileParts.mediaFileId, fileIds)).all();
}

/** The part numbers of 1..`upTo` a file lacks (at most `limit` of them). */
export async function missingParts(env: Env, fileId: number, upTo: number, limit = 10): Promise<number[]> {
	const have = await db(env)
		.select({ n: mediaFileParts.partNumber })
		.from(mediaFileParts)
		.where(and(eq(mediaFileParts.mediaFileId, fileId), lte(mediaFileParts.partNumber, upTo)))
		.orderBy(asc(mediaFileParts.partNumber))
		.all();
	const missing: number[] = [];
	let expected = 1;
	for (const { n } of [...have, { n: upTo + 1 }]) {
		for (; expected < n && missing.length < limit; expected++) missing.push(expected);
		expected = n + 1;
		if (missing.length >= limit) break;
	}
	return missing;
}

/** How a streamed file is completed: exactly parts 1..`parts`, with its length and metadata. */
export interface FileCompletion {
	fileId: number;
	parts: number;
	durationSeconds: number;
	metadata: Record<string, unknown>;
}

/**
 * Completes the recording: each file becomes exactly parts 1..`parts` (its size their sum), the
 * rows of any higher part go, and the recording is `completed`, all in one batch. The keys of the
 * dropped parts are returned for their objects to be deleted.
 */
export async function completeStreamedRecording(
	env: Env,
	recordingId: number,
	files: FileCompletion[],
	completedAt: string,
	errorMessage: string | null,
): Promise<string[]> {
	const orm = db(env);
	const dropped = await Promise.all(
		files.map((f) =>
			orm
				.select({ key: mediaFileParts.storageKey })
				.from(mediaFileParts)
				.where(and(eq(mediaFileParts.mediaFileId, f.fileId), gt(mediaFileParts.partNumber, f.parts)))
				.all(),
		),
	);
	const [first, ...rest] = files.flatMap((f) => [
		orm.delete(mediaFileParts).where(and(eq(mediaFileParts.mediaFileId, f.fileId), gt(mediaFileParts.partNumber, f.parts))),
		orm
			.update(mediaFiles)
			.set({
				parts: f.parts,
				status: "completed",
				durationSeconds: f.durationSeconds,
				metadata: f.metadata,
				fileSizeBytes: sql`(SELECT COALESCE(SUM(bytes), 0) FROM media_file_parts WHERE media_file_id = ${f.fileId} AND part_number <= ${f.parts})`,
			})
			.where(eq(mediaFiles.id, f.fileId)),
	]);
	const finish = orm.update(recordings).set({ status: "completed", completedAt, errorMessage }).where(eq(recordings.id, recordingId));
	await (first ? orm.batch([first, ...rest, finish]) : finish.run());
	return dropped.flat().map((r) => r.key);
}

/** The recording's streamed files. */
export async function streamedFilesOf(env: Env, recordingId: number): Promise<MediaFileRow[]> {
	return db(env)
		.select()
		.from(mediaFiles)
		.where(and(eq(mediaFiles.recordingId, recordingId), sql`${mediaFiles.parts} IS NOT NULL`))
		.orderBy(asc(mediaFiles.id))
		.all();
}

/** Removes streamed files that have no part 1 (nothing of them can be played). */
export async function dropEmptyFiles(env: Env, fileIds: number[]): Promise<void> {
	if (fileIds.length === 0) return;
	const orm = db(env);
	await orm.batch([
		orm.delete(mediaFileParts).where(inArray(mediaFileParts.mediaFileId, fileIds)),
		orm.delete(mediaFiles).where(inArray(mediaFiles.id, fileIds)),
	]);
}

/** Marks a recording failed: its bot streamed nothing playable. */
export async function failRecording(env: Env, recordingId: number, completedAt: string, errorMessage: string): Promise<void> {
	await db(env).update(recordings).set({ status: "failed", completedAt, errorMessage }).where(eq(recordings.id, recordingId)).run();
}

/** Recordings still `in_progress` whose meeting ended before `endedBefore` (ISO): their bot will not complete them. */
export const abandonedRecordingsQuery = (env: Env, endedBefore: string, limit: number) =>
	db(env)
		.select({ recording: recordings })
		.from(recordings)
		.innerJoin(meetings, eq(meetings.id, recordings.meetingId))
		.where(
			and(
				// A literal, not a bound value: SQLite then reads the partial index recordings_in_progress.
				sql`${recordings.status} = 'in_progress'`,
				inArray(meetings.status, [...TERMINAL_STATUSES]),
				sql`${meetings.endTime} IS NOT NULL AND ${meetings.endTime} < ${endedBefore}`,
			),
		)
		.orderBy(asc(recordings.id))
		.limit(limit);

export async function abandonedRecordings(env: Env, endedBefore: string, limit: number): Promise<RecordingRow[]> {
	return (await abandonedRecordingsQuery(env, endedBefore, limit).all()).map((r) => r.recording);
}
