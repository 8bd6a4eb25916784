/**
 * Keeping what the bot reports within the channel's limits (src/bot-channel/protocol.ts): the
 * room refuses a longer segment or chat line, and a refused message is lost, so the bot
 * splits long captions and shortens long chat lines before sending.
 */

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The length of a cut at or below `max` that does not split a surrogate pair. */
function safeCut(text: string, max: number): number {
	return isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
}

/**
 * Splits text into pieces of at most `max` characters, at the last whitespace in the second
 * half of each piece when there is one (the whitespace is dropped). Appending to the text never
 * changes a piece that is already followed by another, so a growing caption keeps its pieces.
 */
export function splitText(text: string, max: number): string[] {
	const pieces: string[] = [];
	let rest = text;
	while (rest.length > max) {
		let cut = -1;
		for (let i = max; i > max / 2; i--) {
			if (/\s/.test(rest.charAt(i))) {
				cut = i;
				break;
			}
		}
		if (cut > 0) {
			pieces.push(rest.slice(0, cut));
			rest = rest.slice(cut + 1);
		} else {
			const at = safeCut(rest, max);
			pieces.push(rest.slice(0, at));
			rest = rest.slice(at);
		}
	}
	if (rest !== "" || pieces.length === 0) pieces.push(rest);
	return pieces;
}

/** Text cut to at most `max` characters, ending in "…" when it was cut. */
export function shorten(text: string, max: number): string {
	if (text.length <= max) return text;
	return `${text.slice(0, safeCut(text, max - 1))}…`;
}
