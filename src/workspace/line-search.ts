import type { SearchHit } from "./workspace-types";

/** A hit's line is cut to this many characters: enough to show the match, never a whole minified file. */
const HIT_TEXT_CHARS = 400;

/**
 * The lines of one file that contain `needle` (already lower-cased), at most `limit`: one rule
 * for the stored workspace (Workspace.search) and a turn's staged files (TurnFiles.search).
 */
export function linesContaining(path: string, content: string, needle: string, limit: number): SearchHit[] {
	const hits: SearchHit[] = [];
	const lines = content.split("\n");
	for (let i = 0; i < lines.length && hits.length < limit; i++) {
		const line = lines[i] ?? "";
		if (line.toLowerCase().includes(needle)) hits.push({ path, line: i + 1, text: line.slice(0, HIT_TEXT_CHARS) });
	}
	return hits;
}
