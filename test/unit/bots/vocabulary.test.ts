/** The merged vocabulary a bot gets, and what a planned meeting adds to it (src/bots/vocabulary.ts). */
import { describe, expect, it } from "vitest";
import { mergeVocabulary, planVocabulary, titleTerms, VOCABULARY_ENTRY_MAX, VOCABULARY_MAX } from "../../../src/bots/vocabulary";

describe("merged vocabulary", () => {
	it("keeps lists in order, trims and collapses spaces, and drops a second spelling whatever its case", () => {
		expect(mergeVocabulary(["  Siobhán   O'Neill ", "Datadog"], null, ["DATADOG", "siobhán o'neill", "K8s"], undefined)).toEqual([
			"Siobhán O'Neill",
			"Datadog",
			"K8s",
		]);
	});

	it("caps the list at 100 entries and an entry at 64 characters", () => {
		const many = Array.from({ length: 150 }, (_, i) => `term ${i}`);
		expect(mergeVocabulary(many)).toEqual(many.slice(0, VOCABULARY_MAX));
		expect(mergeVocabulary(["x".repeat(80)])[0]).toHaveLength(VOCABULARY_ENTRY_MAX);
	});
});

describe("a plan's vocabulary", () => {
	it("takes a title's names and jargon, not its common meeting words", () => {
		expect(titleTerms("Weekly Sync: PostgreSQL upgrade with Acme (K8s, SLO) — Siobhán's review")).toEqual([
			"PostgreSQL",
			"Acme",
			"K8s",
			"SLO",
			"Siobhán's",
		]);
		expect(titleTerms("Team standup")).toEqual([]);
		expect(titleTerms("iOS release Q&A on Monday")).toEqual(["iOS"]);
	});

	it("adds the attendees' names before the title's words, and ignores what is not a list of names", () => {
		expect(planVocabulary({ attendees: ["Anja Novak", 7, "Siobhán O'Neill"], title: "Roadmap with Contoso" })).toEqual([
			"Anja Novak",
			"Siobhán O'Neill",
			"Contoso",
		]);
		expect(planVocabulary({ attendees: "Anja", title: 3 })).toEqual([]);
		expect(planVocabulary(null)).toEqual([]);
	});
});
