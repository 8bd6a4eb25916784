/**
 * What a bot records (docs/api.md#recording-config): `recording_config` of POST /bots, and the
 * reference's `video` flag, turned into the spawn's `RecordingPlan`.
 */
import { z } from "@hono/zod-openapi";
import { type RecordingPlan, VIDEO_FRAME_RATE, VIDEO_RESOLUTIONS, type VideoResolution } from "../bot-channel/protocol";
import { invalidField } from "../errors";

const RESOLUTIONS = Object.keys(VIDEO_RESOLUTIONS) as [VideoResolution, ...VideoResolution[]];

/** What a caller may choose of a recording; each field left out takes its default. */
export const RecordingConfig = z.strictObject({
	video: z.boolean().optional().openapi({ description: "A video file of what a participant sees, next to the audio file. Default true." }),
	resolution: z
		.enum(RESOLUTIONS)
		.optional()
		.openapi({
			description: `The video's size: 720p (1280×720, the default) or 1080p (1920×1080), at ${VIDEO_FRAME_RATE} frames a second.`,
		}),
	audio_format: z.enum(["opus", "wav"]).optional().openapi({
		description: "`opus` (WebM/Opus, streamed while the meeting runs; the default) or `wav` (16 kHz PCM, uploaded when the bot leaves).",
	}),
});
export type RecordingConfig = z.infer<typeof RecordingConfig>;

/** The recording fields of a bot request, as POST /bots takes them. */
export interface RecordingFields {
	recording_enabled?: boolean | null;
	recording_config?: RecordingConfig | null;
	video?: boolean | null;
}

/**
 * Folds the reference's `video` into `recording_enabled` and `recording_config` (its MeetingCreate:
 * `video: true` records with video, `false` records audio only). A request that says two
 * contrary things is refused with a 422 naming `video`.
 */
export function recordingFieldsOf(fields: RecordingFields): {
	recording_enabled?: boolean | null;
	recording_config?: RecordingConfig | null;
} {
	const { video, recording_enabled, recording_config } = fields;
	if (video === undefined || video === null) return { recording_enabled, recording_config };
	if (video && recording_enabled === false) {
		throw invalidField(["body", "video"], "video: true records the meeting, so it cannot go with recording_enabled: false");
	}
	if (recording_config?.video !== undefined && recording_config.video !== video) {
		throw invalidField(["body", "video"], "video and recording_config.video disagree: send one of them");
	}
	return {
		recording_enabled: video ? true : recording_enabled,
		recording_config: { ...(recording_config ?? {}), video },
	};
}

/** The spawn's plan for a recording bot: each field the caller left out takes its default. */
export function recordingPlan(config: RecordingConfig | null | undefined): RecordingPlan {
	const size = VIDEO_RESOLUTIONS[config?.resolution ?? "720p"];
	return {
		video: config?.video ?? true,
		width: size.width,
		height: size.height,
		frame_rate: VIDEO_FRAME_RATE,
		audio_format: config?.audio_format ?? "opus",
	};
}
