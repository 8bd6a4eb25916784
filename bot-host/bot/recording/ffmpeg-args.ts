/**
 * The one ffmpeg command line a recording bot runs (encoder.ts): its screen's page region and the
 * meeting's audio in; WebM files out, finalized by ffmpeg itself (Duration, SeekHead, Cues) so
 * they seek. Cheap on purpose: four bots recording 720p share two cores with their Chromiums.
 */
import type { RecordingPlan } from "../../../src/bot-channel/protocol.ts";
import { SAMPLE_RATE } from "../transcription/engine.ts";
import type { ScreenRect } from "./viewport.ts";

/** Opus for speech (16 kHz mono in): far below 1 MB a minute (24 kb/s is 180 kB). */
export const AUDIO_BITRATE = "24k";
/** VP8's ceiling at 720p and 15 fps; scaled by pixels and frames. A meeting's mostly still picture stays far below it. */
const VIDEO_BITS_AT_720P15 = 1_000_000;
/**
 * Clusters close at least this often: the file on disk grows by whole clusters (ffmpeg writes one
 * when it closes), so a part lags the encoder by at most this, and a host that dies loses no more.
 */
const CLUSTER_MS = 2_000;

/** Inputs whose form is known: opened without probing seconds of them, so recording starts at once. */
const QUICK_OPEN = ["-probesize", "32", "-analyzeduration", "0"];

export interface EncoderInputs {
	/** The bot's X display (`:N`) and the page's rectangle on it. */
	display: string;
	rect: ScreenRect;
	plan: RecordingPlan;
	/** Where the meeting's 16 kHz mono PCM comes in (a pipe ffmpeg reads). */
	audioFd: number;
	/** Where the progress lines (`out_time_us=`) go. */
	progressFd: number;
	/**
	 * When the audio input's first sample was (epoch ms): the files' time 0. The screen's frames are
	 * placed on that clock too, so the video plays in step with the audio however late ffmpeg starts.
	 */
	startedAt: number;
	files: { audio: string; video: string | null };
}

export function videoBitrate(plan: Pick<RecordingPlan, "width" | "height" | "frame_rate">): number {
	const scale = ((plan.width * plan.height) / (1280 * 720)) * (plan.frame_rate / 15);
	return Math.round((VIDEO_BITS_AT_720P15 * scale) / 1000) * 1000;
}

export function encoderArgs(o: EncoderInputs): string[] {
	const { plan, rect } = o;
	// With video the screen is input 0 and the audio input 1; without, the audio is the only input.
	const audioInput = o.files.video ? "1:a" : "0:a";
	const webm = ["-f", "webm", "-cluster_time_limit", String(CLUSTER_MS), "-flush_packets", "1"];
	// Constrained VBR keeps tonal audio near the target; 60 ms frames carry a third of the container overhead.
	const opus = ["-c:a", "libopus", "-b:a", AUDIO_BITRATE, "-vbr", "constrained", "-application", "voip", "-frame_duration", "60"];
	const video = o.files.video
		? [
				"-map",
				"0:v",
				"-map",
				audioInput,
				// One pass of the scaler (fast bilinear) into VP8's pixel format; the page's shape kept, padded to the plan's.
				"-vf",
				[
					`scale=${plan.width}:${plan.height}:force_original_aspect_ratio=decrease:force_divisible_by=2:flags=fast_bilinear`,
					"format=yuv420p",
					`pad=${plan.width}:${plan.height}:(ow-iw)/2:(oh-ih)/2`,
				].join(","),
				"-c:v",
				"libvpx",
				"-deadline",
				"realtime",
				"-cpu-used",
				"8",
				"-threads",
				"2",
				// Constrained quality: still pictures cost little, the bitrate only bounds motion.
				"-crf",
				"30",
				"-b:v",
				String(videoBitrate(plan)),
				"-g",
				String(plan.frame_rate * 4),
				...opus,
				...webm,
				o.files.video,
			]
		: [];
	return [
		"-hide_banner",
		"-loglevel",
		"error",
		"-nostdin",
		"-nostats",
		"-y",
		"-progress",
		`pipe:${o.progressFd}`,
		"-stats_period",
		"0.25",
		// The page's region of the bot's screen (the pointer left out).
		...(o.files.video
			? [
					// x11grab stamps each frame with the wall clock (epoch µs). Kept (an input seek to 0 by timestamp
					// keeps ffmpeg from moving the first frame to 0) and taken back to the audio's first sample, a frame
					// sits where it was grabbed: ffmpeg starting late (a loaded host) leaves the video's start empty
					// rather than putting its picture ahead of the audio.
					"-seek_timestamp",
					"1",
					"-ss",
					"0",
					"-itsoffset",
					`-${(o.startedAt / 1000).toFixed(3)}`,
					// Four frames (4 MB each at 720p) wait for the encoder at most; past them the screen is grabbed less
					// often. The queue is what a stop loses (ffmpeg drops it on SIGTERM): sixteen frames were seconds of
					// the meeting's end when a loaded host encoded a few frames a second.
					"-thread_queue_size",
					"4",
					...QUICK_OPEN,
					"-f",
					"x11grab",
					"-draw_mouse",
					"0",
					"-framerate",
					String(plan.frame_rate),
					"-video_size",
					`${rect.width}x${rect.height}`,
					"-grab_x",
					String(rect.x),
					"-grab_y",
					String(rect.y),
					"-i",
					o.display,
				]
			: []),
		// The meeting's audio as the bot captures it.
		"-thread_queue_size",
		"1024",
		...QUICK_OPEN,
		"-f",
		"s16le",
		"-ar",
		String(SAMPLE_RATE),
		"-ac",
		"1",
		"-i",
		`pipe:${o.audioFd}`,
		...video,
		"-map",
		audioInput,
		...opus,
		...webm,
		o.files.audio,
	];
}
