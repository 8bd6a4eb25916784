/**
 * The plain-text transcript: a header (the meeting's name, link, status and times as they are
 * when the text is made), then one `[hh:mm:ss] Speaker: text` line per confirmed segment, in
 * time order. The public share (`GET /public/transcripts/{id}.txt`) and the `format=txt` export
 * serve it. Line breaks inside a title, speaker's name or text are folded, so what a meeting
 * shows cannot forge lines of its own. Pure: no Worker or browser API.
 */
import { meetingLabel } from "./meeting-label";

export interface TranscriptHead {
	platform: string;
	native_meeting_id: string | null;
	/** The meeting's `data.title`, if any. */
	title: string | null;
	status: string;
	start_time: string | null;
	end_time: string | null;
}

export interface TextSegment {
	segment_id: string | null;
	speaker: string | null;
	text: string;
	start: number;
	end: number;
	completed: boolean | null;
}

// The other control characters, which no transcript needs (tab and the line breaks are folded below).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is dropped
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f]/g;
// Every character a reader may take for a line break: vertical tab, form feed, NEL, the Unicode
// line and paragraph separators too.
// biome-ignore lint/suspicious/noControlCharactersInRegex: line breaks are exactly what is folded
const BREAKS = /\s*[\r\n\u000b\u000c\u0085\u2028\u2029]+\s*/g;

/** One line of text: line breaks in a segment would break the line-per-segment formats. */
export function oneLine(text: string): string {
	return text.replace(CONTROL, "").replace(BREAKS, " ").replace(/\t/g, " ").trim();
}

export function speakerOf(segment: Pick<TextSegment, "speaker">): string {
	return oneLine(segment.speaker ?? "") || "Unknown speaker";
}

/** Confirmed segments only (a draft is a guess the bot may still replace), by start time. */
export function confirmedInOrder<S extends Pick<TextSegment, "segment_id" | "start" | "completed">>(segments: S[]): S[] {
	return segments.filter((s) => s.completed).sort((a, b) => a.start - b.start || ((a.segment_id ?? "") < (b.segment_id ?? "") ? -1 : 1));
}

/** `hh:mm:ss` from seconds. */
export function clock(seconds: number): string {
	const total = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
	const pad = (n: number) => String(n).padStart(2, "0");
	return `${pad(Math.floor(total / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

/**
 * The text: the header, a blank line, the segment lines. `sections` are lines of their own that
 * the format=txt export adds after the header (who was there) and at the end (the chat).
 */
export function transcriptText(
	head: TranscriptHead,
	segments: TextSegment[],
	sections: { afterHead?: string[]; atEnd?: string[] } = {},
): string {
	const lines = [
		`Meeting: ${meetingLabel({ platform: head.platform, native_meeting_id: head.native_meeting_id, data: { title: head.title } })}`,
		`Platform: ${head.platform}`,
		`Meeting ID: ${oneLine(head.native_meeting_id ?? "") || "-"}`,
		`Status: ${head.status}`,
		`Started: ${head.start_time ?? "-"}`,
		`Ended: ${head.end_time ?? "-"}`,
		"",
		...(sections.afterHead?.length ? [...sections.afterHead, "Transcript:"] : []),
		...confirmedInOrder(segments).map((s) => `[${clock(s.start)}] ${speakerOf(s)}: ${oneLine(s.text)}`),
		...(sections.atEnd ?? []),
	];
	return `${lines.join("\n")}\n`;
}
