/**
 * One card per thing the copilot remembers: the rules the copilot (durable-objects/meeting-stream/cards.ts)
 * and the dashboard's stream reducer share. A model asked beat after beat names the same company
 * again ("Acme Corp", "ACME Corp.", "acme  corp"): those are one card, updated in place. Pure and
 * importing nothing, so the dashboard's bundle can take it as it is.
 */

/** The fields of a card that a repeat may change (the stream's CopilotCard without its id). */
export interface CardFields {
	kind: string;
	title: string;
	body: string;
	actionable: boolean;
}

/**
 * What makes two titles the same card: case, accents, punctuation, symbols and spacing do not
 * count. A title of punctuation or symbols only keeps its own characters, so it still has a key.
 */
export function cardKey(title: string): string {
	// Symbols go before the compatibility split, which would spell some out ("™" as "TM").
	const plain = title
		.replace(/\p{S}+/gu, " ")
		.normalize("NFKD")
		.replace(/\p{M}+/gu, "")
		.toLowerCase();
	const words = plain
		.replace(/[\p{P}\p{S}]+/gu, " ")
		.replace(/\s+/g, " ")
		.trim();
	return words || title.toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * A repeat folded into the card it repeats: the card keeps its first title and kind (the same
 * thing, written another way, is no news, and one card does not change what it is about), the
 * newest body says it best (an empty one keeps the old), and a card once actionable stays so.
 * `changed`: whether anything shown differs.
 */
export function mergeCard<T extends CardFields>(existing: T, repeat: CardFields): { card: T; changed: boolean } {
	const card: T = { ...existing, body: repeat.body || existing.body, actionable: existing.actionable || repeat.actionable };
	return { card, changed: card.body !== existing.body || card.actionable !== existing.actionable };
}
