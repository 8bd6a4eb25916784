/**
 * A recording's picture and sound on one clock, however late ffmpeg starts (a loaded host can
 * take seconds to start it). The encoder's files begin at its `started_at`: the audio's first
 * sample. The screen's frames sit where they were grabbed on that clock, so the video's start is
 * empty for as long as ffmpeg took to start, and a sound made at some moment plays at the same
 * second in both files. Here ffmpeg is started 1.5 s late on purpose (a wrapper on PATH).
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startVirtualDisplay, type VirtualDisplay } from "../bot/display.ts";
import { RecordingEncoder } from "../bot/recording/encoder.ts";
import { encoderTool } from "../bot/recording/tools.ts";
import { SAMPLE_RATE } from "../bot/transcription/engine.ts";
import { playedSeconds } from "./media-files.ts";

const run = promisify(execFile);
const FFMPEG_LATE_S = 1.5;
/** The beep's place on the recording's clock, and the whole recording's length. */
const BEEP_FROM_S = 3;
const BEEP_TO_S = 3.3;
const RECORD_S = 6;

/** Where the first sample louder than quiet speech is in a file's audio, in seconds. */
async function firstLoudSecond(file: string): Promise<number> {
	const { stdout } = await run(
		"ffmpeg",
		["-v", "error", "-i", file, "-map", "0:a", "-f", "s16le", "-ac", "1", "-ar", String(SAMPLE_RATE), "pipe:1"],
		{
			encoding: "buffer",
			maxBuffer: 16 * 1024 * 1024,
		},
	);
	for (let i = 0; i + 1 < stdout.length; i += 2) if (Math.abs(stdout.readInt16LE(i)) > 2000) return i / 2 / SAMPLE_RATE;
	return Number.NaN;
}

/** The first video packet's time in a file. */
async function firstFrameSecond(file: string): Promise<number> {
	const { stdout } = await run("ffprobe", [
		"-v",
		"error",
		"-select_streams",
		"v",
		"-show_entries",
		"packet=pts_time",
		"-of",
		"csv=p=0",
		file,
	]);
	return Number(stdout.trim().split("\n")[0]);
}

describe("a recording started by a late ffmpeg", () => {
	const dir = mkdtempSync(path.join(tmpdir(), "recording-clock-"));
	const searchPath = process.env.PATH;
	let display: VirtualDisplay;
	beforeAll(async () => {
		display = await startVirtualDisplay({ dir, width: 320, height: 240 });
		const late = path.join(dir, "bin");
		mkdirSync(late);
		writeFileSync(path.join(late, "ffmpeg"), `#!/bin/sh\nsleep ${FFMPEG_LATE_S}\nexec ${encoderTool("ffmpeg")} "$@"\n`);
		chmodSync(path.join(late, "ffmpeg"), 0o755);
		process.env.PATH = `${late}${path.delimiter}${searchPath}`;
	});
	afterAll(async () => {
		process.env.PATH = searchPath;
		await display?.close();
		rmSync(dir, { recursive: true, force: true });
	});

	it("places the screen's frames and the audio on the clock of started_at: the video starts empty for as long as ffmpeg took, and a beep plays at its second in both files", async () => {
		const files = { audio: path.join(dir, "audio.webm"), video: path.join(dir, "video.webm") };
		const said: string[] = [];
		const encoder = new RecordingEncoder({
			plan: { video: true, width: 320, height: 240, frame_rate: 15, audio_format: "opus" },
			screen: { display, rect: { x: 0, y: 0, width: 320, height: 240 } },
			files,
			log: (line) => said.push(line),
		});
		// The page's audio as it arrives, in 100 ms chunks: silence, and a 1 kHz beep at BEEP_FROM_S on the
		// recording's clock (the feed's first 20 ms of silence come before the first chunk).
		let sent = Math.round(0.02 * SAMPLE_RATE);
		while (Date.now() - encoder.startedAt < RECORD_S * 1000) {
			await sleep(100);
			const due = Math.floor(((Date.now() - encoder.startedAt) / 1000) * SAMPLE_RATE);
			const chunk = Buffer.alloc(Math.max(0, due - sent) * 2);
			for (let i = 0; i < chunk.length / 2; i++) {
				const at = (sent + i) / SAMPLE_RATE;
				if (at >= BEEP_FROM_S && at < BEEP_TO_S) chunk.writeInt16LE(Math.round(12_000 * Math.sin(2 * Math.PI * 1000 * at)), i * 2);
			}
			encoder.push(chunk);
			sent = Math.max(sent, due);
		}
		const stoppedAt = Date.now();
		expect(await encoder.stop(), encoder.lastWords || said.join("\n")).toBe(true);
		// ffmpeg's progress counts on the same clock.
		expect(Math.abs(encoder.mediaSeconds - (stoppedAt - encoder.startedAt) / 1000)).toBeLessThan(1.5);

		// Nothing was grabbed before ffmpeg ran; what was grabbed goes on to the stop.
		const firstFrame = await firstFrameSecond(files.video);
		expect(firstFrame).toBeGreaterThanOrEqual(FFMPEG_LATE_S);
		expect(firstFrame).toBeLessThan(RECORD_S - 1);
		// (What ffmpeg still held when it was stopped may be lost: up to about a second under load.)
		const videoEnd = await playedSeconds(files.video, "v");
		expect(Math.abs(encoder.startedAt + videoEnd * 1000 - stoppedAt)).toBeLessThan(1500);
		// The beep at its second in the audio file and in the video file's sound.
		for (const file of [files.audio, files.video]) expect(Math.abs((await firstLoudSecond(file)) - BEEP_FROM_S)).toBeLessThan(0.1);
	});
});
