/**
 * A meeting's vocabulary as whisper's prompt, the one hint whisper takes (docs/api.md#vocabulary).
 * Here, beside the speech service, because both the service (a stream's `vocabulary`) and the
 * bot's OpenAI-compatible client build it; the bot may import the service's pure modules.
 */

/**
 * Longest whisper prompt the bot sends. Whisper keeps the last 224 tokens of a prompt; 800
 * characters stay under that for names and jargon (about 3.5 characters a token in English,
 * fewer for accented names), so no entry is silently cut from the front.
 */
export const PROMPT_MAX_CHARS = 800;

/**
 * The vocabulary as a whisper prompt: one short sentence listing the entries in their order,
 * as far as they fit in PROMPT_MAX_CHARS (whole entries only); null without any. Whisper
 * continues a prompt's style and spellings, so a plain list is what it copies best.
 */
export function vocabularyPrompt(vocabulary: readonly string[]): string | null {
	const lead = "Glossary: ";
	let prompt = "";
	for (const raw of vocabulary) {
		const entry = raw.replace(/\s+/g, " ").trim();
		if (entry === "") continue;
		const next = prompt === "" ? `${lead}${entry}` : `${prompt}, ${entry}`;
		if (next.length + 1 > PROMPT_MAX_CHARS) break;
		prompt = next;
	}
	return prompt === "" ? null : `${prompt}.`;
}
