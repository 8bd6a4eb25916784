import { describe, expect, it } from "vitest";
import { CardBoard, MAX_CARDS } from "../../../durable-objects/meeting-stream/cards";
import { cardKey, mergeCard } from "../../../src/agent/copilot-cards";

const card = (title: string, body = "", kind = "company", actionable = false) => ({ kind, title, body, actionable });

describe("cardKey", () => {
	it("sets case, accents, punctuation, symbols and spacing aside", () => {
		const key = cardKey("Acme Corp");
		for (const same of ["ACME corp.", "  acme   Corp ", "Acme, Corp!", "Ácmé Corp", "acme-corp", "Acme\tCorp™"])
			expect(cardKey(same), same).toBe(key);
		expect(cardKey("Acme Corporation")).not.toBe(key);
		expect(cardKey("Zoë Ng")).toBe(cardKey("zoe ng"));
	});

	it("keeps a key for a title of punctuation only", () => {
		expect(cardKey("???")).toBe("???");
		expect(cardKey("!!")).not.toBe(cardKey("??"));
		expect(cardKey("™")).not.toBe(cardKey("©"));
	});
});

describe("mergeCard", () => {
	it("keeps the first title and kind, takes the newest non-empty body, and stays actionable once it was", () => {
		const first = { id: "card-1", ...card("Acme Corp", "Alice works there") };
		expect(mergeCard(first, card("ACME corp.", "Signed the pilot", "product"))).toEqual({
			card: { id: "card-1", ...card("Acme Corp", "Signed the pilot") },
			changed: true,
		});
		expect(mergeCard(first, card("acme corp", ""))).toEqual({ card: first, changed: false });
		const actionable = mergeCard(first, card("Acme", "", "action_item", true)).card;
		expect(actionable).toMatchObject({ kind: "company", body: "Alice works there", actionable: true });
		expect(mergeCard(actionable, card("Acme Corp", "Alice works there", "company", false)).changed).toBe(false);
	});
});

describe("CardBoard", () => {
	it("numbers new cards, updates repeats under their id, and lists the titles shown", () => {
		const board = new CardBoard();
		expect(board.place(card("Acme Corp", "a"))).toEqual({ id: "card-1", ...card("Acme Corp", "a") });
		expect(board.place(card("Bob", "b", "person"))).toMatchObject({ id: "card-2" });
		expect(board.place(card("acme corp.", "a"))).toBeNull();
		expect(board.place(card("ACME CORP", "new"))).toEqual({ id: "card-1", ...card("Acme Corp", "new") });
		expect(board.titles()).toEqual(["Acme Corp", "Bob"]);
		// What a beat saves is what the next one starts from.
		const next = new CardBoard(board.stored());
		expect(next.place(card("Acme Corp", "new"))).toBeNull();
		expect(next.place(card("Carol", "c", "person"))).toMatchObject({ id: "card-3" });
	});

	it("is bounded: past the most cards a new thing gets none, a repeat still updates its own", () => {
		const board = new CardBoard();
		for (let i = 0; i < MAX_CARDS; i++) expect(board.place(card(`Company ${i}`, "x"))).not.toBeNull();
		expect(board.place(card("One too many", "x"))).toBeNull();
		expect(board.place(card("company 0", "updated"))).toMatchObject({ id: "card-1", body: "updated" });
		expect(board.stored()).toHaveLength(MAX_CARDS);
		expect(board.titles()).toHaveLength(100);
	});
});
