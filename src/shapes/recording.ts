/** A recording and its media files, declared once (docs/api.md#recordings): what the store keeps and REST shows. Imports only zod. */
import { z } from "zod";

/** One stored file of a recording. */
export const MediaFile = z.object({
	id: z.number().int(),
	type: z.string().describe("`audio`"),
	format: z.string().describe("`wav`"),
	storage_backend: z.string(),
	file_size_bytes: z.number().int().nullable(),
	duration_seconds: z.number().nullable(),
	metadata: z.record(z.string(), z.unknown()),
	created_at: z.string(),
});
export type MediaFile = z.infer<typeof MediaFile>;

export const Recording = z.object({
	id: z.number().int(),
	meeting_id: z.number().int(),
	user_id: z.number().int(),
	session_uid: z.string(),
	source: z.string(),
	status: z.string().describe("`in_progress`, `completed` or `failed`"),
	error_message: z.string().nullable(),
	created_at: z.string(),
	completed_at: z.string().nullable(),
	media_files: z.array(MediaFile),
});
export type Recording = z.infer<typeof Recording>;
