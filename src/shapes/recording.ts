/** A recording and its media files, declared once (docs/api.md#recordings): what the store keeps and REST shows. Imports only zod. */
import { z } from "zod";

/** One stored file of a recording. */
export const MediaFile = z.object({
	id: z.number().int(),
	type: z.string().describe("`audio` or `video`"),
	format: z.string().describe("`webm` (audio: Opus; video: VP8 with the meeting's audio as Opus), or `wav` (16 kHz PCM) when asked for"),
	storage_backend: z.string(),
	file_size_bytes: z
		.number()
		.int()
		.nullable()
		.describe("Bytes of the file; while its recording is `in_progress`, of the parts stored so far"),
	duration_seconds: z.number().nullable().describe("Seconds it plays; while its recording is `in_progress`, through the last part stored"),
	metadata: z
		.record(z.string(), z.unknown())
		.describe(
			"Video: `width`, `height`, `frame_rate`, `codec`, `audio_codec`, `started_at`; WebM audio: `codec` and, once completed, `sample_rate`, `channels`, `started_at`; WAV: `sample_rate`, `channels`, `bits_per_sample`",
		),
	created_at: z.string(),
});
export type MediaFile = z.infer<typeof MediaFile>;

/** A recording's `status`, as its description below says; the dashboard words each (dashboard/src/words/meeting.ts). */
export const RECORDING_STATUSES = ["in_progress", "completed", "failed"] as const;
export type RecordingStatus = (typeof RECORDING_STATUSES)[number];

export const Recording = z.object({
	id: z.number().int(),
	meeting_id: z.number().int(),
	user_id: z.number().int(),
	session_uid: z.string(),
	source: z.string(),
	status: z
		.string()
		.describe(
			"`in_progress` (its bot is still streaming it), `completed`, or `failed` (nothing of it could be played); a recording its bot did not finish is completed by the server with `error_message` saying so",
		),
	error_message: z.string().nullable(),
	created_at: z.string(),
	completed_at: z.string().nullable(),
	media_files: z.array(MediaFile),
});
export type Recording = z.infer<typeof Recording>;
