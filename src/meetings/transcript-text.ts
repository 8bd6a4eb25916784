/**
 * The plain-text transcript: a header, then one `[hh:mm:ss] Speaker: text` line per confirmed
 * segment, in time order. The public share (`GET /public/transcripts/{id}.txt`) serves it and
 * the dashboard downloads it. Line breaks inside a speaker's name or text are folded, so what a
 * meeting shows cannot forge lines of its own. Pure: no Worker or browser API.
 */

export interface TranscriptHead {
	platform: string | null;
	native_meeting_id: string | null;
	start_time: string | null;
	end_time: string | null;
}

export interface TextSegment {
	segment_id: string | null;
	speaker: string | null;
	text: string;
	start: number;
	completed: boolean | null;
}

/** One line of text: line breaks in a segment would break the line-per-segment formats. */
export function oneLine(text: string): string {
	return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

export function speakerOf(segment: Pick<TextSegment, "speaker">): string {
	return oneLine(segment.speaker ?? "") || "Unknown speaker";
}

/** Confirmed segments only (a draft is a guess the bot may still replace), by start time. */
export function confirmedInOrder<S extends TextSegment>(segments: S[]): S[] {
	return segments.filter((s) => s.completed).sort((a, b) => a.start - b.start || ((a.segment_id ?? "") < (b.segment_id ?? "") ? -1 : 1));
}

/** `hh:mm:ss` from seconds. */
export function clock(seconds: number): string {
	const total = Math.max(0, Math.floor(seconds));
	const pad = (n: number) => String(n).padStart(2, "0");
	return `${pad(Math.floor(total / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

export function transcriptText(head: TranscriptHead, segments: TextSegment[]): string {
	const lines = [
		`Platform: ${head.platform}`,
		`Meeting ID: ${head.native_meeting_id}`,
		`Started: ${head.start_time ?? "-"}`,
		`Ended: ${head.end_time ?? "-"}`,
		"",
		...confirmedInOrder(segments).map((s) => `[${clock(s.start)}] ${speakerOf(s)}: ${oneLine(s.text)}`),
	];
	return `${lines.join("\n")}\n`;
}
