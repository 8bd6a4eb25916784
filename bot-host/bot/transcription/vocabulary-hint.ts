/**
 * A meeting's vocabulary (names, terms) as each engine takes a hint: a prompt sentence for
 * Whisper-style endpoints, a bounded list of terms for the streaming providers. The list arrives
 * merged and deduplicated (docs/api.md#transcription-engines); here it is only cut to what each engine accepts.
 */

/** Whisper's prompt holds 224 tokens; a few hundred characters of names stays well inside it. */
const PROMPT_MAX_CHARS = 600;

/** The prompt an OpenAI-compatible endpoint gets: the terms as a sentence, or null for none. */
export function vocabularyPrompt(vocabulary: readonly string[]): string | null {
	let prompt = "";
	for (const term of vocabulary) {
		const next = prompt ? `${prompt}, ${term}` : term;
		if (`Glossary: ${next}.`.length > PROMPT_MAX_CHARS) break;
		prompt = next;
	}
	return prompt ? `Glossary: ${prompt}.` : null;
}

/**
 * At most `max` terms of at most `maxChars` each (longer ones are left out, not cut: half a
 * name would hint the wrong word). AssemblyAI takes 100 terms of 50 characters; Deepgram's
 * keyterm prompting counts tokens, about 100 short terms.
 */
export function keyterms(vocabulary: readonly string[], max = 100, maxChars = 50): string[] {
	return vocabulary.filter((term) => term.trim() !== "" && term.length <= maxChars).slice(0, max);
}
