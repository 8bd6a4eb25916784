/**
 * Custom vocabulary (docs/api.md#vocabulary): words and names a meeting is likely to hear,
 * from the bot (`POST /bots` `vocabulary`), the account (`PUT /user/transcription` `vocabulary`)
 * and a calendar plan (its attendees' names and its title's words worth hinting). The bot gets
 * them merged in its spawn request's `vocabulary`: the engine's hint, and the spellings the
 * platform's captions are corrected to.
 */
import { z } from "@hono/zod-openapi";

/** Entries a list takes (the bot's, the account's), and the merged list the bot gets. */
export const VOCABULARY_MAX = 100;
/** Characters an entry takes, once trimmed. */
export const VOCABULARY_ENTRY_MAX = 64;

/** A vocabulary as a request sends it: refused (422 naming the field and the limit) past either limit. */
export const Vocabulary = z
	.array(
		z
			.string()
			.trim()
			.min(1, { message: "a vocabulary entry must not be empty" })
			.max(VOCABULARY_ENTRY_MAX, { message: `a vocabulary entry has at most ${VOCABULARY_ENTRY_MAX} characters` }),
	)
	.max(VOCABULARY_MAX, { message: `at most ${VOCABULARY_MAX} vocabulary entries` })
	.openapi({
		description: `Words and names the meeting is likely to hear (at most ${VOCABULARY_MAX}, each 1 to ${VOCABULARY_ENTRY_MAX} characters): the engine's hint and the spelling captions are corrected to`,
	});

/**
 * Lists merged in order (earlier lists first), each entry trimmed with its spaces collapsed,
 * duplicates dropped whatever their case (the first spelling stays), at most VOCABULARY_MAX.
 */
export function mergeVocabulary(...lists: (readonly string[] | null | undefined)[]): string[] {
	const seen = new Set<string>();
	const merged: string[] = [];
	for (const list of lists) {
		for (const raw of list ?? []) {
			const entry = raw.replace(/\s+/g, " ").trim().slice(0, VOCABULARY_ENTRY_MAX).trim();
			const key = entry.toLocaleLowerCase();
			if (entry === "" || seen.has(key)) continue;
			seen.add(key);
			merged.push(entry);
			if (merged.length === VOCABULARY_MAX) return merged;
		}
	}
	return merged;
}

/**
 * Words every meeting title has, which an engine hears without help: a calendar's words for a
 * meeting, and the short words between the names.
 */
const COMMON_TITLE_WORDS = new Set(
	(
		"a an and the of for with to in on at by or vs via from about re fw fwd " +
		"meeting meetings call sync standup stand-up daily weekly monthly quarterly annual biweekly bi-weekly " +
		"review planning plan kickoff kick-off retro retrospective demo update updates check-in checkin catch-up catchup " +
		"chat intro introduction interview session workshop team all-hands allhands office hours q&a qa discussion " +
		"follow-up followup one-on-one 1:1 onboarding training lunch coffee board offsite internal external " +
		"zoom teams google meet invitation invite canceled cancelled tentative new project status " +
		"monday tuesday wednesday thursday friday saturday sunday"
	).split(" "),
);

/**
 * A title's words worth hinting: names and jargon an engine may not know, that is words with a
 * capital after their first letter ("PostgreSQL", "iOS"), letters and digits together ("K8s"),
 * letters outside ASCII ("Siobhán"), acronyms ("SLO"), and capitalised words past the title's
 * first; never a common meeting word ("Weekly", "Sync"), nor one of fewer than 3 characters.
 */
export function titleTerms(title: string): string[] {
	const words = title.match(/[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu) ?? [];
	return words.filter((word, i) => {
		if (word.length < 3 || COMMON_TITLE_WORDS.has(word.toLowerCase())) return false;
		const letters = /\p{L}/u.test(word);
		return /^.+\p{Lu}/u.test(word) || (letters && /\p{N}/u.test(word)) || /[^\p{ASCII}]/u.test(word) || (i > 0 && /^\p{Lu}/u.test(word));
	});
}

/**
 * What a planned meeting's record adds: its attendees' display names (a calendar plan's
 * `data.attendees`) and its title's words worth hinting.
 */
export function planVocabulary(data: { attendees?: unknown; title?: unknown } | null | undefined): string[] {
	const attendees = Array.isArray(data?.attendees) ? data.attendees.filter((a): a is string => typeof a === "string") : [];
	const title = typeof data?.title === "string" ? titleTerms(data.title) : [];
	return [...attendees, ...title];
}
