/** Custom vocabulary on the bot: the whisper prompt, and the spelling captions are corrected to. */
import { describe, expect, it } from "vitest";
import type { BotSegment } from "../../src/bot-channel/protocol.ts";
import { CaptionTracker } from "../bot/transcript.ts";
import { captionSpeller, editDistance, editsAllowed, PROMPT_MAX_CHARS, vocabularyPrompt } from "../bot/transcription/vocabulary.ts";

describe("vocabulary prompt", () => {
	it("is one short sentence listing the entries, and nothing without any", () => {
		expect(vocabularyPrompt(["Siobhán O'Neill", "Kubernetes operator", "  Datadog  "])).toBe(
			"Glossary: Siobhán O'Neill, Kubernetes operator, Datadog.",
		);
		expect(vocabularyPrompt([])).toBeNull();
		expect(vocabularyPrompt(["  ", ""])).toBeNull();
	});

	it("stays within whisper's prompt limit, with whole entries only", () => {
		const long = Array.from({ length: 100 }, (_, i) => `Entry number ${i} of a long list`);
		const prompt = vocabularyPrompt(long) ?? "";
		expect(prompt.length).toBeLessThanOrEqual(PROMPT_MAX_CHARS);
		expect(prompt.length).toBeGreaterThan(PROMPT_MAX_CHARS - 40);
		expect(prompt.endsWith("of a long list.")).toBe(true);
		// Every entry it names is whole, in the list's order.
		const named = prompt.slice("Glossary: ".length, -1).split(", ");
		expect(named).toEqual(long.slice(0, named.length));
	});
});

describe("edit distance", () => {
	it("counts insertions, deletions, substitutions and swapped neighbours, and stops past the limit", () => {
		expect(editDistance("kubernetes", "kubernetes", 2)).toBe(0);
		expect(editDistance("kubernetis", "kubernetes", 2)).toBe(1);
		expect(editDistance("kuberentes", "kubernetes", 2)).toBe(1);
		expect(editDistance("kubrnetes", "kubernetes", 2)).toBe(1);
		expect(editDistance("cooper", "kubernetes", 2)).toBe(3);
		expect([4, 5, 8, 12, 30].map(editsAllowed)).toEqual([0, 1, 2, 3, 3]);
	});
});

describe("caption spelling", () => {
	const spell = captionSpeller(["Siobhán O'Neill", "Kubernetes operator", "Datadog", "Jenkins", "Anja", "PostgreSQL"]);

	it("takes the listed spelling where a caption differs in case, spacing, punctuation or diacritics", () => {
		expect(spell("I asked siobhan oneill about it.")).toBe("I asked Siobhán O'Neill about it.");
		expect(spell("We moved to data dog last week")).toBe("We moved to Datadog last week");
		expect(spell("the kubernetes-operator restarts")).toBe("the Kubernetes operator restarts");
		expect(spell("ANJA said so")).toBe("Anja said so");
	});

	it("takes it where a long enough word is a few letters off", () => {
		expect(spell("the Kubernetis operater failed")).toBe("the Kubernetes operator failed");
		expect(spell("Siobhan O'Neil joined")).toBe("Siobhán O'Neill joined");
		expect(spell("Postgre SQL is up")).toBe("PostgreSQL is up");
		expect(spell("ask Jenkinz")).toBe("ask Jenkins");
	});

	it("corrects a name's part said alone, and keeps a possessive or plural ending", () => {
		expect(spell("Thanks, Siobhan.")).toBe("Thanks, Siobhán.");
		expect(spell("that is Siobhan's plan")).toBe("that is Siobhán's plan");
		expect(spell("two kubernetes operators")).toBe("two Kubernetes operators");
		expect(spell("Jenkin a build")).toBe("Jenkins a build");
	});

	it("leaves short words, other words, and words inside words alone", () => {
		// "Anya" is one letter off "Anja", but four letters are too few to tell a misspelling from another name.
		expect(spell("Anya and Ana")).toBe("Anya and Ana");
		expect(spell("Datadogs are not datadoghq or superdatadog")).toBe("Datadogs are not datadoghq or superdatadog");
		expect(spell("Jenkinsville is a town")).toBe("Jenkinsville is a town");
		// A few letters off but a different first letter: another word, not a misspelling.
		expect(spell("Renkins")).toBe("Renkins");
		expect(spell("The plan is fine.")).toBe("The plan is fine.");
	});

	it("is the identity without a vocabulary", () => {
		expect(captionSpeller([])("siobhan oneill")).toBe("siobhan oneill");
	});
});

describe("caption tracker with a vocabulary", () => {
	it("sends drafts and the confirmation in the listed spelling, and tells changes by the page's text", () => {
		const sent: BotSegment[] = [];
		const tracker = new CaptionTracker({
			prefix: "m1",
			callStartedAt: 0,
			settleMs: 1_000,
			language: "en",
			vocabulary: ["Siobhán O'Neill"],
			emit: (s) => sent.push(s),
		});
		tracker.update([{ key: "c1", speaker: "Ann", text: "Thanks" }], [], 1_000);
		tracker.update([{ key: "c1", speaker: "Ann", text: "Thanks siobhan" }], [], 1_200);
		tracker.update([{ key: "c1", speaker: "Ann", text: "Thanks siobhan oneil." }], [], 1_400);
		// The same page text again is no change, though it differs from what was sent.
		tracker.update([{ key: "c1", speaker: "Ann", text: "Thanks siobhan oneil." }], [], 1_600);
		tracker.update([{ key: "c1", speaker: "Ann", text: "Thanks siobhan oneil." }], [], 2_500);
		expect(sent.map((s) => [s.text, s.completed])).toEqual([
			["Thanks", false],
			["Thanks Siobhán", false],
			["Thanks Siobhán O'Neill.", false],
			["Thanks Siobhán O'Neill.", true],
		]);
	});
});
