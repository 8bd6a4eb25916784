/** Debian's ffmpeg package: `ffmpeg` encodes a bot's recording, `ffprobe` reads what it wrote. */
import { findOnPath } from "../search-path.ts";

/** Why bots on this host record WAV instead of WebM parts, in words an operator can act on; null when ffmpeg is there. */
export function encoderMissing(searchPath?: string): string | null {
	const missing = ["ffmpeg", "ffprobe"].filter((tool) => !findOnPath(tool, searchPath));
	return missing.length === 0
		? null
		: `${missing.join(" and ")} not found on PATH (install the Debian package ffmpeg): bots record the meeting's audio as WAV, with no video and no compressed audio`;
}

/** The path of ffmpeg or ffprobe; throws the operator's words when it is missing. */
export function encoderTool(tool: "ffmpeg" | "ffprobe"): string {
	const found = findOnPath(tool);
	if (!found) throw new Error(encoderMissing() ?? `${tool} not found`);
	return found;
}
