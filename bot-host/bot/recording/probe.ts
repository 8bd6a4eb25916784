/** What a finished recording file holds, as ffprobe reads it (its header, which ffmpeg wrote on finishing): length and streams. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { encoderTool } from "./tools.ts";

const run = promisify(execFile);

export interface ProbedStream {
	codec_type: string;
	codec_name: string;
	width?: number;
	height?: number;
	/** `15/1` */
	r_frame_rate?: string;
	sample_rate?: string;
	channels?: number;
}

export interface Probed {
	/** Seconds, from the header's Duration; null when the file has none. */
	duration: number | null;
	streams: ProbedStream[];
}

export async function probeMedia(file: string): Promise<Probed> {
	const { stdout } = await run(
		encoderTool("ffprobe"),
		[
			"-v",
			"error",
			"-show_entries",
			"format=duration:stream=codec_type,codec_name,width,height,r_frame_rate,sample_rate,channels",
			"-of",
			"json",
			file,
		],
		{ env: {}, timeout: 30_000, maxBuffer: 1024 * 1024 },
	);
	const parsed = JSON.parse(stdout) as { format?: { duration?: string }; streams?: ProbedStream[] };
	const duration = Number(parsed.format?.duration);
	return { duration: Number.isFinite(duration) ? duration : null, streams: parsed.streams ?? [] };
}

/** The completion's metadata for a file (RecordingCompletion): video width, height, frame rate and codecs; audio codec, rate and channels. */
export function completionMetadata(probed: Probed): Record<string, string | number> {
	const video = probed.streams.find((s) => s.codec_type === "video");
	const audio = probed.streams.find((s) => s.codec_type === "audio");
	if (video) {
		const [num, den] = (video.r_frame_rate ?? "0/1").split("/").map(Number);
		return {
			width: video.width ?? 0,
			height: video.height ?? 0,
			frame_rate: den ? Math.round(((num ?? 0) / den) * 100) / 100 : 0,
			codec: video.codec_name,
			...(audio ? { audio_codec: audio.codec_name } : {}),
		};
	}
	return audio ? { codec: audio.codec_name, sample_rate: Number(audio.sample_rate ?? 0), channels: audio.channels ?? 0 } : {};
}
