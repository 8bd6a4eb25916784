/**
 * Transcript downloads: the API's exports (GET /transcripts/{platform}/{native}?format=,
 * docs/api.md#exports), fetched when the button is pressed, so the file carries the meeting's
 * status and times as they are then, not as they were when the page opened. The server writes
 * the files; this names them. Pure (transcript-format.test.ts).
 */

export const TRANSCRIPT_DOWNLOADS = [
	{ format: "txt", label: "Download .txt" },
	{ format: "srt", label: "Download .srt" },
	{ format: "vtt", label: "Download .vtt" },
	{ format: "json", label: "Download .json" },
] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_DOWNLOADS)[number]["format"];

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const UNSAFE = /[\u0000-\u001f\u007f-\u009f"\\/:*?<>|]+/g;

/**
 * The file name from the answer's Content-Disposition (`filename*` in UTF-8 first, else
 * `filename`), cleaned again of what a file name must not carry; `fallback` when there is none.
 */
export function attachmentName(disposition: string | null, fallback: string): string {
	if (!disposition) return fallback;
	const extended = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(disposition)?.[1];
	let name: string | undefined;
	if (extended) {
		try {
			name = decodeURIComponent(extended);
		} catch {
			name = undefined;
		}
	}
	name ??= /filename\s*=\s*"([^"]*)"/i.exec(disposition)?.[1] ?? /filename\s*=\s*([^;\s]+)/i.exec(disposition)?.[1];
	const clean = (name ?? "")
		.replace(UNSAFE, "_")
		.replace(/^[.\s]+/, "")
		.trim();
	return clean || fallback;
}
