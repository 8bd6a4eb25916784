/**
 * Reading the recordings the bots stream, as a player would: ffprobe for streams and lengths,
 * ffmpeg for frames, and the WebM's own elements (Cues, Duration) for what finishing wrote.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface MediaInfo {
	/** The header's Duration (null: none, as in a file whose encoder was killed). */
	duration: number | null;
	streams: {
		codec_type: string;
		codec_name: string;
		width?: number;
		height?: number;
		r_frame_rate?: string;
		duration?: string;
		tags?: { DURATION?: string };
	}[];
}

/** A joined file on disk for the length of `use`. */
export async function withFile<T>(bytes: Buffer, use: (file: string) => Promise<T>): Promise<T> {
	const dir = mkdtempSync(path.join(tmpdir(), "recording-test-"));
	const file = path.join(dir, "media.webm");
	writeFileSync(file, bytes);
	try {
		return await use(file);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** What ffprobe reads from the file's header alone (no decoding). */
export async function probe(file: string): Promise<MediaInfo> {
	const { stdout } = await run("ffprobe", [
		"-v",
		"error",
		"-show_entries",
		"format=duration:stream=codec_type,codec_name,width,height,r_frame_rate:stream_tags=DURATION",
		"-of",
		"json",
		file,
	]);
	const parsed = JSON.parse(stdout) as { format?: { duration?: string }; streams?: MediaInfo["streams"] };
	const duration = Number(parsed.format?.duration);
	return { duration: Number.isFinite(duration) ? duration : null, streams: parsed.streams ?? [] };
}

/** A stream's length from its DURATION tag (HH:MM:SS.fraction, written when ffmpeg finished the file). */
export function tagSeconds(tag: string | undefined): number | null {
	const m = /^(\d+):(\d+):([\d.]+)$/.exec(tag ?? "");
	return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : null;
}

/** The last packet's end in a stream, read by demuxing every packet (no header needed): what the file really plays. */
export async function playedSeconds(file: string, stream: "v" | "a"): Promise<number> {
	const { stdout } = await run(
		"ffprobe",
		["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", file],
		{
			maxBuffer: 64 * 1024 * 1024,
		},
	);
	let end = 0;
	for (const line of stdout.trim().split("\n")) {
		const [pts, duration] = line.split(",").map(Number);
		if (Number.isFinite(pts)) end = Math.max(end, (pts ?? 0) + (Number.isFinite(duration) ? (duration ?? 0) : 0));
	}
	return end;
}

/** The frame at `seconds`, in gray pixels at the video's own size (a speaker's name in a tile is a few hundred of them). */
export async function frameAt(file: string, seconds: number): Promise<Buffer> {
	const { stdout } = await run(
		"ffmpeg",
		["-v", "error", "-ss", seconds.toFixed(2), "-i", file, "-frames:v", "1", "-pix_fmt", "gray", "-f", "rawvideo", "pipe:1"],
		{
			encoding: "buffer",
			maxBuffer: 16 * 1024 * 1024,
		},
	);
	return stdout;
}

/** Pixels whose gray level differs by more than 24 between two frames of one size. */
export function pixelsChanged(a: Buffer, b: Buffer): number {
	let changed = 0;
	for (let i = 0; i < Math.min(a.length, b.length); i++) if (Math.abs((a[i] ?? 0) - (b[i] ?? 0)) > 24) changed++;
	return changed;
}

/**
 * Pixels that hold still within each of two stretches of a video (every frame of `a` alike, every
 * frame of `b` alike) yet differ between them: what changed from one stretch to the other, with
 * whatever moves all the time (a participant's moving picture) left out.
 */
export function steadyChange(a: Buffer[], b: Buffer[]): number {
	const still = (frames: Buffer[], i: number) => frames.every((f) => Math.abs((f[i] ?? 0) - (frames[0]?.[i] ?? 0)) <= 24);
	const [first, other] = [a[0], b[0]];
	if (!first || !other) return 0;
	let changed = 0;
	for (let i = 0; i < Math.min(first.length, other.length); i++)
		if (Math.abs((first[i] ?? 0) - (other[i] ?? 0)) > 24 && still(a, i) && still(b, i)) changed++;
	return changed;
}

/** Distinct gray levels in a frame (a blank frame has one or two). */
export function levels(frame: Buffer): number {
	return new Set(frame).size;
}

/** Whether a WebM holds a Cues element (the index ffmpeg writes when it finishes the file). */
export function hasCues(webm: Buffer): boolean {
	return webm.includes(Buffer.from([0x1c, 0x53, 0xbb, 0x6b]));
}
