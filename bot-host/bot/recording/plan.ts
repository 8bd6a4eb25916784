/**
 * What a bot records, decided once from its spawn and what the host has: nothing, the finished
 * WAV in one upload (asked for, an older Worker without a parts URL, or a host without ffmpeg),
 * or WebM files streamed in parts (docs/bot-channel.md#recording-parts). And how large the bot's
 * screen must be for its video.
 */
import { type RecordingPlan, type SpawnRequest, VIDEO_FRAME_RATE, VIDEO_RESOLUTIONS } from "../../../src/bot-channel/protocol.ts";
import { BOT_SCREEN } from "../browser.ts";

export type RecordingMode =
	| { kind: "none" }
	/** The 16 kHz WAV PUT to `recording_upload_url` when the bot leaves (audio.ts); `why` when it stands in for streamed parts. */
	| { kind: "wav"; why?: string }
	| { kind: "parts"; plan: RecordingPlan; url: string };

/** A spawn with recording on and no plan records a compressed audio file only. */
const AUDIO_ONLY: RecordingPlan = { video: false, ...VIDEO_RESOLUTIONS["720p"], frame_rate: VIDEO_FRAME_RATE, audio_format: "opus" };

/** `missingEncoder`: why this host cannot encode (tools.ts encoderMissing), or null. */
export function recordingMode(
	request: Pick<SpawnRequest, "recording_enabled" | "recording" | "recording_parts_url">,
	missingEncoder: string | null,
): RecordingMode {
	if (!request.recording_enabled) return { kind: "none" };
	const plan = request.recording ?? AUDIO_ONLY;
	if (plan.audio_format === "wav") return { kind: "wav" };
	if (!request.recording_parts_url) return { kind: "wav", why: "the spawn names no recording_parts_url (an older Worker)" };
	if (missingEncoder) return { kind: "wav", why: missingEncoder };
	return { kind: "parts", plan, url: request.recording_parts_url };
}

/**
 * Tab strip and toolbar of the headed window above the page (87 px measured on Debian's Chromium
 * 13x on Xvfb), with room to spare: the page below them must be at least the video's size.
 */
const BROWSER_CHROME_ALLOWANCE = 120;

/** The window comes out a pixel narrower than the screen it is sized to: a few pixels spare keep the page at least as wide as the video. */
const WINDOW_EDGE_ALLOWANCE = 8;

/** The bot's screen: today's unless the video needs a larger page (1080p). */
export function screenFor(mode: RecordingMode): { width: number; height: number } {
	if (mode.kind !== "parts" || !mode.plan.video) return BOT_SCREEN;
	const { width, height } = mode.plan;
	return {
		width: width > BOT_SCREEN.width ? width + WINDOW_EDGE_ALLOWANCE : BOT_SCREEN.width,
		height: Math.max(BOT_SCREEN.height, height + BROWSER_CHROME_ALLOWANCE),
	};
}
