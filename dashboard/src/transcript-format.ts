/**
 * Transcript downloads, made in the browser from the transcript JSON: `.txt` (like the public
 * share: `[h:mm:ss] Speaker: text`), `.srt` (numbered cues) and `.json`. Only confirmed
 * segments go into .txt and .srt: a draft is a guess the bot may still replace.
 * Pure (transcript-format.test.ts).
 */
import type { Segment, Transcript } from "./types";

/** One line of text: line breaks in a segment would break the line-per-segment formats. */
function oneLine(text: string): string {
	return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

function speakerOf(segment: Segment): string {
	return oneLine(segment.speaker ?? "") || "Unknown speaker";
}

function confirmedInOrder(segments: Segment[]): Segment[] {
	return segments.filter((s) => s.completed).sort((a, b) => a.start - b.start || (a.segment_id < b.segment_id ? -1 : 1));
}

function hms(seconds: number): string {
	const total = Math.max(0, Math.floor(seconds));
	const pad = (n: number) => String(n).padStart(2, "0");
	return `${pad(Math.floor(total / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

export function transcriptText(transcript: Transcript, segments: Segment[]): string {
	const head = [
		`Platform: ${transcript.platform}`,
		`Meeting ID: ${transcript.native_meeting_id}`,
		`Started: ${transcript.start_time ?? "-"}`,
		`Ended: ${transcript.end_time ?? "-"}`,
		"",
	];
	const lines = confirmedInOrder(segments).map((s) => `[${hms(s.start)}] ${speakerOf(s)}: ${oneLine(s.text)}`);
	return `${[...head, ...lines].join("\n")}\n`;
}

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
export function transcriptJson(transcript: Transcript, segments: Segment[]): string {
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
