/**
 * What the copilot's cards are about, in words (src/agent/copilot-document.ts: the default
 * `card_kinds`; an owner may name their own in `agents/meeting.md`, those are spelled out). Pure.
 */
import type { DEFAULT_CARD_KINDS } from "../../../src/agent/copilot-document";

type DefaultCardKind = (typeof DEFAULT_CARD_KINDS)[number];

export const CARD_KIND_WORDS: Record<DefaultCardKind, string> = {
	person: "Person",
	company: "Company",
	product: "Product",
	action_item: "Action item",
};

/** A card's kind as a label: "Action item"; an owner's own `follow_up` as "Follow up". */
export function cardKindWords(kind: string): string {
	const known = (CARD_KIND_WORDS as Record<string, string | undefined>)[kind.toLowerCase()];
	if (known) return known;
	const spelled = kind
		.replace(/[_.-]+/g, " ")
		.trim()
		.toLowerCase();
	return spelled ? spelled[0]?.toUpperCase() + spelled.slice(1) : "Note";
}
