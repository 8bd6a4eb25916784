import { describe, expect, it } from "vitest";
import { applyStreamEvent, EMPTY_STREAM, isMeetingEnd, type MeetingStreamState, reconnectDelay } from "./meeting-stream";

function feed(events: [string, unknown][], state: MeetingStreamState = EMPTY_STREAM): MeetingStreamState {
	return events.reduce((s, [id, data]) => applyStreamEvent(s, { id, data }), state);
}

describe("meeting stream into the copilot page", () => {
	it("upserts transcript lines by segment id: the confirmation replaces its draft", () => {
		const state = feed([
			["1", { type: "transcript", id: "s1", speaker: "Alice", text: "Hello th", t: 0.5, tsMs: 1, completed: false }],
			["2", { type: "transcript", id: "s1", speaker: "Alice", text: "Hello there.", t: 0.5, tsMs: 1, completed: true }],
		]);
		expect(state.lines).toEqual([{ id: "s1", speaker: "Alice", text: "Hello there.", t: 0.5, completed: true }]);
		expect(state.lastEventId).toBe("2");
	});

	it("never lets a late draft overwrite a confirmed line", () => {
		const state = feed([
			["1", { type: "transcript", id: "s1", speaker: "A", text: "Final.", t: 1, completed: true }],
			["2", { type: "transcript", id: "s1", speaker: "A", text: "Fin", t: 1, completed: false }],
		]);
		expect(state.lines[0]?.text).toBe("Final.");
		expect(state.lastEventId).toBe("2");
	});

	it("keeps lines in spoken order when they arrive out of order", () => {
		const state = feed([
			["1", { type: "transcript", id: "b", speaker: "Bob", text: "second", t: 5, completed: true }],
			["2", { type: "transcript", id: "a", speaker: "Alice", text: "first", t: 2, completed: true }],
		]);
		expect(state.lines.map((l) => l.id)).toEqual(["a", "b"]);
	});

	it("upserts notes by id, collects cards and groups a beat's deltas and tool calls by turn", () => {
		const state = feed([
			["3", { type: "note", note: { id: "s1", text: "Hello", speaker: "Alice", t: 0, pass: 0, frozen: false } }],
			["4", { type: "note", note: { id: "s1", text: "Hello there.", speaker: "Alice", t: 0, pass: 1, frozen: true } }],
			["5", { type: "message-delta", text: "Alice ", turn_id: "b1" }],
			["6", { type: "tool-call", tool: "add_card", args: {}, callId: "c", turn_id: "b1" }],
			["7", { type: "message-delta", text: "introduces herself.", turn_id: "b1" }],
			[
				"8",
				{ type: "card", card: { kind: "person", title: "<img src=x onerror=alert(1)>", body: "Lead", actionable: false }, turn_id: "b1" },
			],
		]);
		expect(state.notes).toEqual([{ id: "s1", text: "Hello there.", speaker: "Alice", chapter: undefined, t: 0, pass: 1, frozen: true }]);
		expect(state.beats).toEqual([{ turnId: "b1", text: "Alice introduces herself.", tools: ["add_card"] }]);
		expect(state.cards).toEqual([
			{ id: "", kind: "person", title: "<img src=x onerror=alert(1)>", body: "Lead", actionable: false, turnId: "b1" },
		]);
	});

	it("keeps one card per thing: a card sent again under its id is updated in place, and a replay adds nothing", () => {
		const acme = (body: string, turn: string) => ({
			type: "card",
			card: { id: "card-1", kind: "company", title: "Acme Corp", body, actionable: false },
			turn_id: turn,
		});
		const bob = { type: "card", card: { id: "card-2", kind: "person", title: "Bob", body: "Runs it", actionable: false }, turn_id: "b2" };
		const events: [string, unknown][] = [
			["1", acme("Alice works there", "b1")],
			["2", bob],
			["3", acme("Signed the pilot", "b2")],
		];
		const state = feed(events);
		expect(state.cards).toEqual([
			{ id: "card-1", kind: "company", title: "Acme Corp", body: "Signed the pilot", actionable: false, turnId: "b2" },
			{ id: "card-2", kind: "person", title: "Bob", body: "Runs it", actionable: false, turnId: "b2" },
		]);
		// A reconnect that replays what the page has (a fresh connect replays recent events) changes nothing.
		expect(feed(events, state).cards).toEqual(state.cards);
	});

	it("folds cards without ids (logged before cards had them) by their title, case, spacing and punctuation aside", () => {
		const card = (title: string, body: string, actionable = false) => ({
			type: "card",
			card: { kind: "company", title, body, actionable },
			turn_id: "t",
		});
		const state = feed([
			["1", card("Acme Corp", "First")],
			["2", card("ACME  corp.", "Second")],
			["3", card("acme corp", "", true)],
			["4", card("Zorvantix", "Other")],
		]);
		expect(state.cards.map((c) => [c.title, c.body, c.actionable])).toEqual([
			["Acme Corp", "Second", true],
			["Zorvantix", "Other", false],
		]);
	});

	it("records the meeting's end, and keeps cards that follow it", () => {
		const state = feed([
			["9", { type: "meeting-end", status: "completed", completion_reason: "stopped" }],
			["10", { type: "card", card: { kind: "action_item", title: "Send it", body: "", actionable: true }, turn_id: "final" }],
		]);
		expect(state.ended).toEqual({ status: "completed", completionReason: "stopped" });
		expect(state.cards).toHaveLength(1);
	});

	it("moves the cursor on a ping without changing anything else, and ignores what is not an event object", () => {
		const before = feed([["4", { type: "transcript", id: "s", speaker: "A", text: "x", t: 0, completed: true }]]);
		const pinged = applyStreamEvent(before, { id: "4", data: { type: "ping" } });
		expect(pinged).toEqual(before);
		const garbage = applyStreamEvent(before, { id: "5", data: "not json" });
		expect(garbage.lines).toEqual(before.lines);
		expect(garbage.lastEventId).toBe("5");
	});

	it("keeps only the newest beats", () => {
		const events: [string, unknown][] = Array.from({ length: 25 }, (_, i) => [
			String(i),
			{ type: "message-delta", text: "x", turn_id: `t${i}` },
		]);
		const state = feed(events);
		expect(state.beats).toHaveLength(20);
		expect(state.beats[0]?.turnId).toBe("t5");
	});
});

describe("stream helpers", () => {
	it("backs off 1 s, 2 s, 4 s … up to 15 s", () => {
		expect([0, 1, 2, 3, 4, 10].map(reconnectDelay)).toEqual([1000, 2000, 4000, 8000, 15000, 15000]);
	});

	it("knows the meeting's end, after which the server closes the stream and nothing is left to reconnect for", () => {
		expect(isMeetingEnd({ data: { type: "meeting-end", status: "completed", completion_reason: "stopped" } })).toBe(true);
		for (const data of [{ type: "ping" }, { type: "card" }, "not json", null, "meeting-end"]) expect(isMeetingEnd({ data })).toBe(false);
	});
});
