/**
 * DELETE /recordings/{id} (docs/api.md#recordings, docs/retention.md): the recording's stored
 * objects, then its rows, with a receipt of what went. Objects first: while the bucket refuses
 * one, the rows stay (and the key is logged), so DELETE again finds the recording and finishes.
 */
import type { MediaFileRow, RecordingRow } from "../db/schema";
import type { Env } from "../env";
import { recordingRowCounts } from "../meetings/meeting-erasure-store";
import { storedKeysOf } from "./parted-files";
import { deleteRecordingRows, deleteStoredMedia } from "./recording-store";

export interface RecordingDeletion {
	/** `deleted`: the recording and its objects are gone; `incomplete`: an object was refused, the recording stays. */
	status: "deleted" | "incomplete";
	recording_id: number;
	removed: {
		/** R2 objects deleted. */
		objects: number;
		/** D1 rows per table (the recording, its media files). */
		database: Record<string, number>;
	};
	/** Objects the bucket refused this time. */
	objects_left: number;
}

export async function deleteRecording(env: Env, recording: RecordingRow, files: MediaFileRow[]): Promise<RecordingDeletion> {
	// Each whole file's key, and every part of a streamed one (its rows' keys and what its prefix lists).
	const { keys, listed } = await storedKeysOf(env, files);
	// Listed parts are there; any other key is asked about (a whole file, a part whose object is gone).
	const present = await Promise.all(
		keys.map((key) =>
			listed.has(key)
				? true
				: env.RECORDINGS.head(key).then(
						(head) => head !== null,
						() => true,
					),
		),
	);
	const left = new Set(await deleteStoredMedia(env.RECORDINGS, keys));
	const objects = keys.filter((key, i) => present[i] && !left.has(key)).length;
	if (left.size > 0) {
		// The keys name user, meeting and a uuid only.
		console.warn(
			"recording deletion incomplete, stored media left behind",
			JSON.stringify({ recording_id: recording.id, keys: [...left].map((k) => k.slice(0, 200)) }),
		);
		return { status: "incomplete", recording_id: recording.id, removed: { objects, database: {} }, objects_left: left.size };
	}
	const database = await recordingRowCounts(env, [recording.id]);
	await deleteRecordingRows(env, recording.id);
	return { status: "deleted", recording_id: recording.id, removed: { objects, database }, objects_left: 0 };
}
