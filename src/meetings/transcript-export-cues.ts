/**
 * The subtitle exports: SubRip (.srt) and WebVTT (.vtt), one cue per confirmed segment in start
 * order, timed in seconds from the start of the meeting as the segments are (`start`/`end`).
 * Each cue's payload is one line (`Speaker: text` in SRT, `<v Speaker>text` in WebVTT): line
 * breaks are folded, so a segment's text can neither end a cue early (a blank line) nor start a
 * timing line of its own (`-->`). Names and words are the meeting's, so neither format lets them
 * become markup (srtText, vttEscape). A segment with no text after folding gives no cue. Lines end
 * in LF throughout. Pure (test/unit/meetings/transcript-export.test.ts).
 */
import { confirmedInOrder, oneLine, speakerOf, type TextSegment } from "./transcript-text";

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `hh:mm:ss<sep>mmm`; hours grow past two digits rather than wrap. */
function cueTime(seconds: number, separator: "," | "."): string {
	const ms = Math.max(0, Math.round((Number.isFinite(seconds) ? seconds : 0) * 1000));
	return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor((ms % 3_600_000) / 60_000))}:${pad(Math.floor((ms % 60_000) / 1000))}${separator}${pad(ms % 1000, 3)}`;
}

export const srtTime = (seconds: number) => cueTime(seconds, ",");
export const vttTime = (seconds: number) => cueTime(seconds, ".");

interface Cue {
	start: number;
	end: number;
	speaker: string;
	text: string;
}

/** The cues: confirmed, with text, in start order; a cue that would not end after it starts lasts a second. */
function cuesOf(segments: TextSegment[]): Cue[] {
	return confirmedInOrder(segments)
		.map((s) => ({ start: s.start, end: s.end > s.start ? s.end : s.start + 1, speaker: speakerOf(s), text: oneLine(s.text) }))
		.filter((cue) => cue.text !== "");
}

/**
 * SRT payload text that players cannot read as markup. SubRip has no escape (`&lt;` shows as
 * typed in most players), so `<` and `>` become the look-alike `‹` and `›`: players that honour
 * `<font>`/`<i>` tags, and web players that put cue text into innerHTML, see no tag; and with no
 * `>` left, no `-->` can read as a timing line. A `{` before a backslash becomes `(`, so no
 * `{\an8}`-style override tag moves or hides a cue.
 */
export function srtText(text: string): string {
	return text
		.replace(/</g, "\u2039")
		.replace(/>/g, "\u203a")
		.replace(/\{(?=\s*\\)/g, "(");
}

export function transcriptSrt(segments: TextSegment[]): string {
	return cuesOf(segments)
		.map((c, i) => `${i + 1}\n${srtTime(c.start)} --> ${srtTime(c.end)}\n${srtText(`${c.speaker}: ${c.text}`)}\n`)
		.join("\n");
}

/** WebVTT cue text escapes `&`, `<` and `>` (which also leaves no `-->` in it, in the text or the voice's name). */
export function vttEscape(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function transcriptVtt(segments: TextSegment[]): string {
	const cues = cuesOf(segments).map(
		(c, i) => `${i + 1}\n${vttTime(c.start)} --> ${vttTime(c.end)}\n<v ${vttEscape(c.speaker)}>${vttEscape(c.text)}\n`,
	);
	return ["WEBVTT\n", ...cues].join("\n");
}
