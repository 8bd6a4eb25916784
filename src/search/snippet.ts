/**
 * A hit's snippet as plain text plus where its matches are, never markup: FTS5 marks matches
 * with two control characters that the index's writer turns into spaces in every segment's text
 * (durable-objects/transcript-index/sync.ts), so each one in its output is a mark, not the meeting's.
 */

export const MATCH_OPEN = "\u0001";
export const MATCH_CLOSE = "\u0002";
export const ELLIPSIS = "…";

/** Longest snippet answered, in characters (code points): one long token can outrun FTS5's token count. */
export const SNIPPET_MAX_CHARS = 400;

export interface Snippet {
	/** Plain text. */
	snippet: string;
	/** `[start, end)` offsets into `snippet`, in Unicode code points, one per matched term, in order. */
	highlights: [number, number][];
}

/** Splits FTS5's marked snippet into its text and the code-point offsets of its marks. */
export function parseMarkedSnippet(marked: string): Snippet {
	const chars: string[] = [];
	const highlights: [number, number][] = [];
	let open: number | null = null;
	for (const char of marked) {
		if (char === MATCH_OPEN) open = chars.length;
		else if (char === MATCH_CLOSE) {
			if (open !== null && chars.length > open) highlights.push([open, chars.length]);
			open = null;
		} else chars.push(char);
	}
	return boundSnippet(chars, highlights);
}

/** At most SNIPPET_MAX_CHARS, as a window that starts a little before the first match. */
function boundSnippet(chars: string[], highlights: [number, number][]): Snippet {
	if (chars.length <= SNIPPET_MAX_CHARS) return { snippet: chars.join(""), highlights };
	const room = SNIPPET_MAX_CHARS - 2;
	const first = highlights[0]?.[0] ?? 0;
	const start = Math.max(0, Math.min(first - Math.floor(room / 4), chars.length - room));
	const end = start + room;
	const lead = start > 0 ? ELLIPSIS : "";
	const shift = lead.length - start;
	const kept = highlights
		.filter(([from, to]) => to > start && from < end)
		.map(([from, to]): [number, number] => [Math.max(from, start) + shift, Math.min(to, end) + shift]);
	return { snippet: `${lead}${chars.slice(start, end).join("")}${end < chars.length ? ELLIPSIS : ""}`, highlights: kept };
}
