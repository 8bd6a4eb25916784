/**
 * Real WebM files for the Worker tier's recording tests, made by Debian's ffmpeg (libvpx, libopus)
 * here in Node, since workerd cannot run it: a video file (VP8 test pattern with an Opus tone) and
 * an audio file (Opus), 3 s each, handed over base64 through `provide`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const SECONDS = 3;

export function makeWebmFixtures(): { video: string; audio: string } {
	const dir = mkdtempSync(path.join(tmpdir(), "webm-fixture-"));
	try {
		const tone = ["-f", "lavfi", "-i", `sine=frequency=440:duration=${SECONDS}:sample_rate=48000`];
		const run = (args: string[], file: string) => {
			execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", ...args, "-f", "webm", "-y", path.join(dir, file)]);
			return readFileSync(path.join(dir, file)).toString("base64");
		};
		const video = run(
			[
				"-f",
				"lavfi",
				"-i",
				`testsrc=size=320x180:rate=15:duration=${SECONDS}`,
				...tone,
				"-c:v",
				"libvpx",
				"-b:v",
				"200k",
				"-c:a",
				"libopus",
			],
			"video.webm",
		);
		const audio = run([...tone, "-c:a", "libopus", "-b:a", "24k"], "audio.webm");
		return { video, audio };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
