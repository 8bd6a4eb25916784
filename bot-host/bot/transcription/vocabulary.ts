/**
 * Custom vocabulary on the bot (docs/api.md#vocabulary): the words and names a meeting
 * is likely to hear, as every engine's hint (`vocabularyPrompt` for whisper and OpenAI-compatible
 * endpoints; Deepgram's and AssemblyAI's adapters pass the list itself), and as the spelling the
 * platform's captions are corrected to (`captionSpeller`), since captions take no hint.
 */

export { PROMPT_MAX_CHARS, vocabularyPrompt } from "../../speech/vocabulary-prompt.ts";

/** A word of caption text: letters and digits, with apostrophes and hyphens inside it. */
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
/** A possessive or plural ending a corrected word keeps ("Siobhan's" → "Siobhán's"). */
const ENDING = /(?:['’]s|s)$/u;

/** The form spellings are compared in: no case, no diacritics, no punctuation or spaces. */
export function spellingKey(text: string): string {
	return text
		.normalize("NFD")
		.replace(/\p{M}/gu, "")
		.toLowerCase()
		.replace(/[^\p{L}\p{N}]/gu, "");
}

/**
 * Edits a misheard spelling may differ by: none below 5 letters (a short word is too often
 * another real word), then one per 4 letters, at most 3.
 */
export function editsAllowed(keyLength: number): number {
	return keyLength < 5 ? 0 : Math.min(3, Math.floor(keyLength / 4));
}

/** Edit distance with adjacent transpositions (optimal string alignment); above `limit`, limit + 1. */
export function editDistance(a: string, b: string, limit: number): number {
	if (Math.abs(a.length - b.length) > limit) return limit + 1;
	let before = new Array<number>(b.length + 1).fill(0);
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		let best = i;
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			let d = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] ?? 0) + 1);
			current.push(d);
			best = Math.min(best, d);
		}
		if (best > limit) return limit + 1;
		before = previous;
		previous = current;
	}
	return Math.min(previous[b.length] ?? limit + 1, limit + 1);
}

interface Entry {
	spelling: string;
	key: string;
	words: number;
	allowed: number;
}

interface Token {
	text: string;
	key: string;
	from: number;
	to: number;
}

interface Match {
	entry: Entry;
	/** Tokens the match spans, from the current one. */
	tokens: number;
	distance: number;
	/** The ending the last token keeps after the entry's spelling. */
	ending: string;
}

/**
 * A caption corrector for a vocabulary: each word, or run of up to one word more than an entry
 * has, is replaced by the entry's spelling when it differs only in case, spacing, punctuation
 * or diacritics, or by a few edits for a long enough word with the same first letter. Whole
 * words only: an entry never matches inside another word. Text without a match comes back as it
 * was; an identity function for an empty vocabulary.
 */
export function captionSpeller(vocabulary: readonly string[]): (text: string) => string {
	const entries: Entry[] = [];
	const add = (spelling: string) => {
		const key = spellingKey(spelling);
		if (key === "" || entries.some((e) => e.key === key)) return;
		entries.push({ spelling: spelling.trim(), key, words: spelling.match(WORD)?.length ?? 1, allowed: editsAllowed(key.length) });
	};
	for (const spelling of vocabulary) add(spelling);
	// A name's capitalised parts are spellings too: a caption often says "Siobhan" alone.
	for (const spelling of vocabulary) {
		const words = spelling.match(WORD) ?? [];
		if (words.length > 1) for (const word of words) if (/^\p{Lu}/u.test(word) && spellingKey(word).length >= 5) add(word);
	}
	if (entries.length === 0) return (text) => text;
	const widest = Math.max(...entries.map((e) => e.words)) + 1;
	// A match, exact or not, starts with the entry's first letter: only those entries are tried.
	const byFirst = new Map<string, Entry[]>();
	for (const entry of entries) byFirst.set(entry.key[0] ?? "", [...(byFirst.get(entry.key[0] ?? "") ?? []), entry]);
	return (text) => {
		const tokens: Token[] = [...text.matchAll(WORD)].map((m) => ({
			text: m[0],
			key: spellingKey(m[0]),
			from: m.index,
			to: m.index + m[0].length,
		}));
		let out = "";
		let copied = 0;
		for (let i = 0; i < tokens.length; ) {
			const match = bestMatch(byFirst.get(tokens[i]?.key[0] ?? "") ?? [], tokens, i, widest);
			const first = tokens[i] as Token;
			if (!match) {
				i++;
				continue;
			}
			const last = tokens[i + match.tokens - 1] as Token;
			out += text.slice(copied, first.from) + match.entry.spelling + match.ending;
			copied = last.to;
			i += match.tokens;
		}
		return out + text.slice(copied);
	};
}

/** The best of `entries` for the words from `at` on (see `better`; of equals, the entry listed first). */
function bestMatch(entries: Entry[], tokens: Token[], at: number, widest: number): Match | null {
	if (entries.length === 0) return null;
	let best: Match | null = null;
	for (let n = 1; n <= widest && at + n <= tokens.length; n++) {
		const span = tokens.slice(at, at + n);
		const whole = span.map((t) => t.key).join("");
		const lastText = span[n - 1]?.text ?? "";
		const ending = ENDING.exec(lastText)?.[0] ?? "";
		const forms = [{ key: whole, ending: "" }];
		if (ending && lastText.length > ending.length)
			forms.push({ key: spellingKey(whole.slice(0, whole.length - spellingKey(ending).length)), ending });
		for (const entry of entries) {
			if (Math.abs(entry.words - n) > 1) continue;
			for (const form of forms) {
				const distance = form.key === entry.key ? 0 : fuzzy(entry, form.key);
				if (distance > entry.allowed) continue;
				const candidate = { entry, tokens: n, distance, ending: form.ending };
				if (!best || better(candidate, best)) best = candidate;
			}
		}
	}
	return best;
}

function fuzzy(entry: Entry, key: string): number {
	if (entry.allowed === 0 || key[0] !== entry.key[0]) return entry.allowed + 1;
	return editDistance(key, entry.key, entry.allowed);
}

/**
 * The better of two matches at one place: the span with as many words as its entry ("Jenkin a"
 * is "Jenkins a"), then the longer span (a whole name over its first part), then fewer edits,
 * then the form keeping an ending ("operators" stays plural).
 */
function better(a: Match, b: Match): boolean {
	const offA = Math.abs(a.tokens - a.entry.words);
	const offB = Math.abs(b.tokens - b.entry.words);
	if (offA !== offB) return offA < offB;
	if (a.tokens !== b.tokens) return a.tokens > b.tokens;
	if (a.distance !== b.distance) return a.distance < b.distance;
	return a.ending !== "" && b.ending === "";
}

/**
 * At most `max` terms of at most `maxChars` each, for the streaming providers' term lists (longer
 * ones are left out, not cut: half a name would hint the wrong word). AssemblyAI takes 100 terms
 * of 50 characters; Deepgram's keyterm prompting counts tokens, about 100 short terms.
 */
export function keyterms(vocabulary: readonly string[], max = 100, maxChars = 50): string[] {
	return vocabulary.filter((term) => term.trim() !== "" && term.length <= maxChars).slice(0, max);
}
