import { z } from "@hono/zod-openapi";

/** One stored file of a recording (recordings/recording-store.ts mediaFileView). */
export const MediaFile = z
	.object({
		id: z.number().int(),
		type: z.string().openapi({ description: "`audio`" }),
		format: z.string().openapi({ description: "`wav`" }),
		storage_backend: z.string(),
		file_size_bytes: z.number().int().nullable(),
		duration_seconds: z.number().nullable(),
		metadata: z.record(z.string(), z.unknown()),
		created_at: z.string(),
	})
	.openapi("MediaFile");

/** A recording and its files (recordings/recording-store.ts recordingView). */
export const Recording = z
	.object({
		id: z.number().int(),
		meeting_id: z.number().int(),
		user_id: z.number().int(),
		session_uid: z.string(),
		source: z.string(),
		status: z.string().openapi({ description: "`in_progress`, `completed` or `failed`" }),
		error_message: z.string().nullable(),
		created_at: z.string(),
		completed_at: z.string().nullable(),
		media_files: z.array(MediaFile),
	})
	.openapi("Recording");
