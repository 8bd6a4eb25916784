/**
 * Transcript downloads, made in the browser from the transcript JSON: `.txt` (like the public
 * share: `[h:mm:ss] Speaker: text`), `.srt` (numbered cues) and `.json`. Only confirmed
 * segments go into .txt and .srt: a draft is a guess the bot may still replace.
 * Pure (transcript-format.test.ts).
 */
import { confirmedInOrder, oneLine, speakerOf } from "../../src/meetings/transcript-text";
import type { Segment, Transcript, TranscriptHead } from "./types";

// The .txt file is the public share's format, written once for both.
export { transcriptText } from "../../src/meetings/transcript-text";

/** SRT time `hh:mm:ss,mmm`. */
export function srtTime(seconds: number): string {
	const ms = Math.max(0, Math.round((Number.isFinite(seconds) ? seconds : 0) * 1000));
	const pad = (n: number, w = 2) => String(n).padStart(w, "0");
	return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor((ms % 3_600_000) / 60_000))}:${pad(Math.floor((ms % 60_000) / 1000))},${pad(ms % 1000, 3)}`;
}

export function transcriptSrt(segments: Segment[]): string {
	return confirmedInOrder(segments)
		.map((s, i) => {
			// A cue must end after it starts; a zero-length segment is shown for a second.
			const end = s.end > s.start ? s.end : s.start + 1;
			return `${i + 1}\n${srtTime(s.start)} --> ${srtTime(end)}\n${speakerOf(s)}: ${oneLine(s.text)}\n`;
		})
		.join("\n");
}

/**
 * The transcript response with the segments as the page holds them (drafts included, marked
 * `completed: false`), each with both naming sets of its times, as the API gives them.
 */
export function transcriptJson(transcript: TranscriptHead, segments: Segment[]): string {
	const withBothNames = segments.map((s) => ({ ...s, start_time: s.start, end_time: s.end }));
	return `${JSON.stringify({ ...transcript, segments: withBothNames }, null, 2)}\n`;
}

/** A file name from the meeting's link id, safe on every file system. */
export function transcriptFileName(
	transcript: Pick<Transcript, "platform" | "native_meeting_id">,
	extension: "txt" | "srt" | "json",
): string {
	const base = `${transcript.platform}-${transcript.native_meeting_id}`.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 120);
	return `transcript-${base}.${extension}`;
}
