/**
 * What a bot records, from its spawn and its host (bot/recording/plan.ts): streamed WebM parts
 * when the Worker names where they go and ffmpeg is there; the WAV when asked for, for an older
 * Worker, and on a host without ffmpeg (saying why); and a screen large enough for the video.
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type RecordingPlan, VIDEO_FRAME_RATE, VIDEO_RESOLUTIONS } from "../../src/bot-channel/protocol.ts";
import { BOT_SCREEN } from "../bot/browser.ts";
import { encoderArgs, videoBitrate } from "../bot/recording/ffmpeg-args.ts";
import { recordingMode, screenFor } from "../bot/recording/plan.ts";
import { encoderMissing } from "../bot/recording/tools.ts";
import { pathWithout } from "./browsers.ts";

const plan = (o: Partial<RecordingPlan> = {}): RecordingPlan => ({
	video: true,
	...VIDEO_RESOLUTIONS["720p"],
	frame_rate: VIDEO_FRAME_RATE,
	audio_format: "opus",
	...o,
});
const PARTS = "https://gateway.test/internal/recordings/7/parts";

describe("what a bot records", () => {
	it("streams parts when the spawn names where, and records nothing when recording is off", () => {
		expect(recordingMode({ recording_enabled: true, recording: plan(), recording_parts_url: PARTS }, null)).toEqual({
			kind: "parts",
			plan: plan(),
			url: PARTS,
		});
		// No plan: a compressed audio file only.
		expect(recordingMode({ recording_enabled: true, recording_parts_url: PARTS }, null)).toMatchObject({
			kind: "parts",
			plan: { video: false },
		});
		expect(recordingMode({ recording_enabled: false, recording: plan(), recording_parts_url: PARTS }, null)).toEqual({ kind: "none" });
	});

	it("records the WAV when asked, for a Worker that names no parts URL, and on a host without ffmpeg, saying why", () => {
		expect(recordingMode({ recording_enabled: true, recording: plan({ audio_format: "wav" }), recording_parts_url: PARTS }, null)).toEqual({
			kind: "wav",
		});
		expect(recordingMode({ recording_enabled: true }, null)).toEqual({
			kind: "wav",
			why: "the spawn names no recording_parts_url (an older Worker)",
		});
		const noFfmpeg = pathWithout("ffmpeg");
		const missing = encoderMissing(noFfmpeg);
		rmSync(noFfmpeg, { recursive: true, force: true });
		expect(missing).toBe(
			"ffmpeg not found on PATH (install the Debian package ffmpeg): bots record the meeting's audio as WAV, with no video and no compressed audio",
		);
		expect(recordingMode({ recording_enabled: true, recording: plan(), recording_parts_url: PARTS }, missing)).toEqual({
			kind: "wav",
			why: missing,
		});
		expect(encoderMissing()).toBeNull();
	});

	it("keeps today's screen for 720p and audio, and grows it so a 1080p video's page fits below the browser's bars", () => {
		expect(screenFor({ kind: "parts", plan: plan(), url: PARTS })).toEqual(BOT_SCREEN);
		expect(screenFor({ kind: "wav" })).toEqual(BOT_SCREEN);
		const screen = screenFor({ kind: "parts", plan: plan(VIDEO_RESOLUTIONS["1080p"]), url: PARTS });
		expect(screen.width).toBeGreaterThanOrEqual(1920);
		// Debian's Chromium draws 87 px of tab strip and toolbar above the page.
		expect(screen.height).toBeGreaterThanOrEqual(1080 + 87);
	});

	it("gives ffmpeg only the bot's display, the page's region, and files to write; no video input for audio only", () => {
		const files = { audio: "/tmp/x/audio.webm", video: "/tmp/x/video.webm" };
		const rect = { x: 0, y: 87, width: 1279, height: 812 };
		const startedAt = Date.parse("2026-11-29T10:00:00.250Z");
		const args = encoderArgs({ display: ":5", rect, plan: plan(), audioFd: 3, progressFd: 4, files, startedAt });
		expect(args.join(" ")).toContain("-f x11grab -draw_mouse 0 -framerate 15 -video_size 1279x812 -grab_x 0 -grab_y 87 -i :5");
		// The screen's wall-clock stamps, kept and taken back to the audio's first sample.
		expect(args.join(" ")).toContain(`-seek_timestamp 1 -ss 0 -itsoffset -${(startedAt / 1000).toFixed(3)}`);
		// A short queue of grabbed frames: what ffmpeg drops when it is stopped, the video's end against the bot's leaving.
		expect(args.join(" ")).toContain("-thread_queue_size 4 -probesize 32 -analyzeduration 0 -f x11grab");
		expect(args.join(" ")).toContain("-c:v libvpx -deadline realtime -cpu-used 8");
		expect(args.slice(-1)).toEqual([files.audio]);
		const audioOnly = encoderArgs({
			display: "",
			rect,
			plan: plan({ video: false }),
			audioFd: 3,
			progressFd: 4,
			files: { audio: files.audio, video: null },
			startedAt,
		});
		expect(audioOnly).not.toContain("x11grab");
		expect(audioOnly).not.toContain("libvpx");
		expect(audioOnly).not.toContain("-itsoffset");
		expect(videoBitrate(plan(VIDEO_RESOLUTIONS["1080p"]))).toBeGreaterThan(videoBitrate(plan()));
	});
});
