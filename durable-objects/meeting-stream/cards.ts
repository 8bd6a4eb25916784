/**
 * The copilot's cards of one meeting, one per thing remembered (src/agent/copilot-cards.ts says
 * when two are the same): a repeat updates its card in place, under the card's id, and a repeat
 * that changes nothing is not shown again. Only beats place cards, one beat at a time
 * (meeting-stream/copilot.ts), so the board a beat starts from is the one it saves.
 */
import { type CardFields, cardKey, mergeCard } from "../../src/agent/copilot-cards";
import type { CopilotCard } from "./log";

/** A card as the copilot's state keeps it: the card and the key it is found by. */
export interface StoredCard {
	key: string;
	card: CopilotCard;
}

/** The most cards one meeting gets: past it a new thing gets no card (a repeat still updates its own). */
export const MAX_CARDS = 300;
/** How many card titles a beat's prompt lists as already shown (the newest). */
const PROMPT_TITLES = 100;

export class CardBoard {
	readonly #cards: StoredCard[];

	constructor(stored: readonly StoredCard[] = []) {
		this.#cards = stored.map((c) => ({ key: c.key, card: { ...c.card } }));
	}

	/** The card to show for `fields`: a new one, its card updated, or null when nothing is new (or the board is full). */
	place(fields: CardFields): CopilotCard | null {
		const key = cardKey(fields.title);
		const at = this.#cards.findIndex((c) => c.key === key);
		const existing = this.#cards[at];
		if (existing) {
			const { card, changed } = mergeCard(existing.card, fields);
			if (!changed) return null;
			this.#cards[at] = { key, card };
			return card;
		}
		if (this.#cards.length >= MAX_CARDS) return null;
		const card: CopilotCard = { id: `card-${this.#cards.length + 1}`, ...fields };
		this.#cards.push({ key, card });
		return card;
	}

	/** The titles already shown, newest last: the beat tells the model so it does not add them again. */
	titles(): string[] {
		return this.#cards.slice(-PROMPT_TITLES).map((c) => c.card.title);
	}

	stored(): StoredCard[] {
		return this.#cards.map((c) => ({ key: c.key, card: { ...c.card } }));
	}
}
