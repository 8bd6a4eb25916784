/**
 * What Debian's ffprobe and ffmpeg read in a media file, for tests that check a recording is
 * really playable: its streams and length, and small frames to compare what it shows.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface ProbedStream {
	codec_type: "video" | "audio" | string;
	codec_name: string;
	width?: number;
	height?: number;
	avg_frame_rate?: string;
	sample_rate?: string;
	channels?: number;
}

export interface Probed {
	/** The container's duration as its header (or, failing that, its last packet) says. */
	duration: number;
	format: string;
	streams: ProbedStream[];
}

/** ffprobe's reading of a file; throws when ffprobe cannot read it as media. */
export async function probeMedia(file: string): Promise<Probed> {
	const { stdout } = await run("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file]);
	const parsed = JSON.parse(stdout) as { format: { duration?: string; format_name: string }; streams: ProbedStream[] };
	return { duration: Number(parsed.format.duration ?? Number.NaN), format: parsed.format.format_name, streams: parsed.streams };
}

/** The decoded length of a file's first video (or audio) stream: every frame read, not the header's word. */
export async function decodedSeconds(file: string, stream: "v" | "a" = "v"): Promise<number> {
	const { stderr } = await run("ffmpeg", ["-v", "info", "-nostats", "-i", file, "-map", `0:${stream}:0`, "-f", "null", "-"], {
		maxBuffer: 16 * 1024 * 1024,
	});
	const times = [...stderr.matchAll(/time=(\d+):(\d+):([\d.]+)/g)];
	const last = times.at(-1);
	if (!last) throw new Error(`ffmpeg decoded no ${stream} frames of ${file}`);
	return Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]);
}

/** The frame shown at `seconds`, scaled to 32×18 RGB: enough to tell one picture from another. */
export async function frameAt(file: string, seconds: number): Promise<Buffer> {
	const { stdout } = await run(
		"ffmpeg",
		["-v", "error", "-ss", String(seconds), "-i", file, "-frames:v", "1", "-vf", "scale=32:18", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
		{ encoding: "buffer", maxBuffer: 1024 * 1024 },
	);
	if (stdout.length !== 32 * 18 * 3) throw new Error(`no frame at ${seconds} s of ${file}`);
	return stdout;
}

/** Mean absolute difference of two frames' channels, 0 (same) to 255. */
export function frameDifference(a: Buffer, b: Buffer): number {
	let sum = 0;
	for (let i = 0; i < a.length; i++) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
	return sum / a.length;
}
