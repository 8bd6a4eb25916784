import { invalidField } from "../errors";

/**
 * Turns what a person types into a safe FTS5 MATCH expression. Nothing of FTS5's own syntax
 * passes through: every word and every "quoted phrase" becomes a double-quoted FTS5 string (a
 * quote inside doubled), so `NEAR(`, `OR`, `-`, `:`, `^` and column filters are just words.
 * The one operator kept is a trailing `*` on a word, as a prefix search (`budg*`).
 * Terms are ANDed: a hit has every one of them.
 */

/**
 * More terms than this is no longer a search but a paste; refused with a 422 rather than run.
 * Each term is one more doclist FTS5 walks for every candidate (security review finding 1).
 */
export const MAX_SEARCH_TERMS = 8;

/**
 * A prefix shorter than this matches most words (and has no prefix index of its own, see
 * durable-objects/transcript-index/schema.ts); refused with a 422.
 */
export const MIN_PREFIX_LENGTH = 3;

/** What unicode61 keeps as a token; everything else separates tokens (`k-` is the token `k`). */
const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** A term the index can find: a letter or a digit (the tokenizer's separators alone find nothing). */
const SEARCHABLE = /[\p{L}\p{N}]/u;

/** Control characters (NUL among them) never reach the database. */
const CONTROL = /\p{Cc}/gu;

export interface SearchTerm {
	text: string;
	phrase: boolean;
	prefix: boolean;
}

/** The terms of a query: "quoted phrases" and words, each with the text it searches for. */
export function searchTerms(q: string): SearchTerm[] {
	const input = q.normalize("NFC").replace(CONTROL, " ");
	const terms: SearchTerm[] = [];
	// A phrase runs to its closing quote (or the end, for an unclosed one); a word to whitespace or a quote.
	const unit = /"([^"]*)"?|([^\s"]+)/gu;
	for (const match of input.matchAll(unit)) {
		if (match[1] !== undefined) {
			if (SEARCHABLE.test(match[1])) terms.push({ text: match[1].trim(), phrase: true, prefix: false });
			continue;
		}
		const word = match[2] ?? "";
		const stem = word.replace(/\*+$/u, "");
		if (!SEARCHABLE.test(stem)) continue;
		const prefix = stem !== word;
		if (prefix) requireLongPrefix(word, stem);
		terms.push({ text: stem, phrase: false, prefix });
	}
	return terms;
}

/**
 * FTS5 applies a prefix to the last token of its string, so the length that counts is that
 * token's, not the word's: `k-*` is the prefix `k*`, `ab.cd*` the prefix `cd*`.
 */
function requireLongPrefix(word: string, stem: string): void {
	const last = stem.match(TOKEN)?.at(-1) ?? "";
	const letters = [...last.replace(/\p{M}/gu, "")].length;
	if (letters < MIN_PREFIX_LENGTH)
		throw invalidField(
			["query", "q"],
			`The prefix ${JSON.stringify(word)} is too short: give at least ${MIN_PREFIX_LENGTH} letters or digits before the * (counted in its last word)`,
		);
}

/** One term as an FTS5 string: quoted, any quote in it doubled. */
const quoted = (term: SearchTerm) => `"${term.text.replaceAll('"', '""')}"${term.prefix ? " *" : ""}`;

/**
 * The MATCH expression for `q`, or a 422 naming `q` when it has no searchable terms (only
 * punctuation, symbols or operators) or too many.
 */
export function matchExpression(q: string): string {
	const terms = searchTerms(q);
	if (terms.length === 0)
		throw invalidField(["query", "q"], "The query has nothing to search for: give at least one word with a letter or a digit");
	if (terms.length > MAX_SEARCH_TERMS) throw invalidField(["query", "q"], `The query has more than ${MAX_SEARCH_TERMS} terms`);
	return terms.map(quoted).join(" ");
}
