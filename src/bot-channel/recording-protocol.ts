/**
 * What a recording bot is told and tells back (docs/bot-channel.md#recording-parts): the plan
 * the Worker decides from `recording_config`, and the parts and completion of its streamed files.
 * Imported by the bot host: zod only, `.ts` imports.
 */
import { z } from "zod";

/** Video recording sizes a caller may choose (`recording_config.resolution`). */
export const VIDEO_RESOLUTIONS = {
	"720p": { width: 1280, height: 720 },
	"1080p": { width: 1920, height: 1080 },
} as const;
export type VideoResolution = keyof typeof VIDEO_RESOLUTIONS;

/** The frame rate of recorded video: a meeting is faces and slides, and each frame costs the host CPU. */
export const VIDEO_FRAME_RATE = 15;

/** What a bot records, decided by the Worker from `recording_config` (docs/api.md#recording-config). */
export const RecordingPlan = z.object({
	/** A video file (WebM: VP8 with the meeting's audio as Opus) of what a participant sees. */
	video: z.boolean(),
	width: z.number().int().positive(),
	height: z.number().int().positive(),
	frame_rate: z.number().int().positive(),
	/** `opus`: WebM/Opus streamed in parts; `wav`: the finished 16 kHz PCM WAV in one upload. */
	audio_format: z.enum(["opus", "wav"]),
});
export type RecordingPlan = z.infer<typeof RecordingPlan>;

/** The media kinds a recording's streamed files may be. */
export const RecordingPartType = z.enum(["audio", "video"]);
export type RecordingPartType = z.infer<typeof RecordingPartType>;

/** The largest one part may be: a bot ships a part at least every RECORDING_PART_SECONDS, so parts stay far below it. */
export const RECORDING_PART_MAX_BYTES = 16 * 1024 * 1024;
/** How often a recording bot ships what its encoder wrote: a host that dies loses at most this much. */
export const RECORDING_PART_SECONDS = 10;
/** On each part: the media seconds its file covers through the end of this part, so a file whose bot died still knows its length. */
export const RECORDING_PART_SECONDS_HEADER = "x-media-seconds";
/** Parts one file may have (a meeting at one part per RECORDING_PART_SECONDS for 24 h stays below it). */
export const RECORDING_PARTS_MAX = 10_000;

/**
 * The bot's last word on its streamed recording (`POST <recording_parts_url>/complete`): each
 * file is parts 1..`parts` exactly (any higher part is dropped), and how long it plays.
 */
export const RecordingCompletion = z.object({
	files: z
		.array(
			z.object({
				type: RecordingPartType,
				format: z.literal("webm"),
				parts: z.number().int().min(1).max(RECORDING_PARTS_MAX),
				duration_seconds: z.number().nonnegative(),
				/** Video: width, height, frame_rate, codec, audio_codec; audio: codec, sample_rate, channels; both: started_at (ISO). */
				metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
			}),
		)
		.min(1)
		.max(2),
});
export type RecordingCompletion = z.infer<typeof RecordingCompletion>;
