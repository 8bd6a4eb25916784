import { z } from "@hono/zod-openapi";
import { MediaFile as MediaFileShape, Recording as RecordingShape } from "../shapes/recording";

/** One stored file of a recording (recordings/recording-store.ts mediaFileView), as src/shapes/recording.ts declares it. */
export const MediaFile = MediaFileShape.extend({}).openapi("MediaFile");

/** A recording and its files (recordings/recording-store.ts recordingView). */
export const Recording = RecordingShape.extend({ media_files: MediaFile.array() }).openapi("Recording");

/** The receipt of DELETE /recordings/{id} (docs/api.md#recordings): the contract's `{status, recording_id}`, and what went. */
export const RecordingDeletionReceipt = z
	.object({
		status: z.enum(["deleted", "incomplete"]),
		recording_id: z.number().int(),
		removed: z.object({
			objects: z.number().int().openapi({ description: "R2 objects deleted" }),
			database: z.record(z.string(), z.number().int()).openapi({ description: "D1 rows per table" }),
		}),
		objects_left: z.number().int().openapi({ description: "Objects the bucket refused this time" }),
	})
	.openapi("RecordingDeletionReceipt");
