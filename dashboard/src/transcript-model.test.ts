import { describe, expect, it } from "vitest";
import { applyBundle, fromSegments, orderedLines, type WireSegment } from "./transcript-model";

const seg = (
	id: string,
	speaker: string,
	text: string,
	start: number,
	completed: boolean,
	extra: Partial<WireSegment> = {},
): WireSegment => ({
	segment_id: id,
	speaker,
	text,
	start,
	end: start + 1,
	language: "en",
	completed,
	...extra,
});

const view = (lines: ReturnType<typeof orderedLines>) =>
	lines.map((l) => `${l.segment_id}:${l.speaker}:${l.text}:${l.completed ? "c" : "p"}`);

describe("transcript model", () => {
	it("orders the first GET's segments by start, then segment id, and reads either naming set", () => {
		const state = fromSegments([
			seg("b", "Bob", "second", 2, true),
			{ segment_id: "a", speaker: "Alice", text: "first", start_time: 1, end_time: 1.5, language: "pt-BR", completed: true },
			seg("c", "Bob", "same start", 2, true),
		]);
		const lines = orderedLines(state);
		expect(lines.map((l) => l.segment_id)).toEqual(["a", "b", "c"]);
		expect(lines[0]).toMatchObject({ start: 1, end: 1.5, language: "pt-BR" });
	});

	it("a speaker's pending list replaces that speaker's earlier drafts, and leaves other speakers' drafts", () => {
		let state = fromSegments([seg("a1", "Alice", "hel", 1, false), seg("b1", "Bob", "hi", 1.5, false)]);
		state = applyBundle(state, { speaker: "Alice", confirmed: [], pending: [seg("a2", "Alice", "hello the", 3, false)] });
		expect(view(orderedLines(state))).toEqual(["b1:Bob:hi:p", "a2:Alice:hello the:p"]);
	});

	it("a confirmation replaces the draft with the same segment id", () => {
		let state = fromSegments([]);
		state = applyBundle(state, { speaker: "Alice", confirmed: [], pending: [seg("a1", "Alice", "hello th", 1, false)] });
		state = applyBundle(state, { speaker: "Alice", confirmed: [seg("a1", "Alice", "Hello there.", 1, true)], pending: [] });
		expect(view(orderedLines(state))).toEqual(["a1:Alice:Hello there.:c"]);
	});

	it("a late draft never overwrites a confirmed segment", () => {
		let state = fromSegments([seg("a1", "Alice", "Hello there.", 1, true)]);
		state = applyBundle(state, { speaker: "Alice", confirmed: [], pending: [seg("a1", "Alice", "hello th", 1, false)] });
		expect(view(orderedLines(state))).toEqual(["a1:Alice:Hello there.:c"]);
	});

	it("a draft that moves from Unknown speaker to a name shows once, under the name, in either arrival order", () => {
		const start = fromSegments([]);
		const drafted = applyBundle(start, {
			speaker: "Unknown speaker",
			confirmed: [],
			pending: [seg("u1", "Unknown speaker", "good morning", 1, false)],
		});
		const nameFirst = applyBundle(
			applyBundle(drafted, { speaker: "Carol", confirmed: [], pending: [seg("u1", "Carol", "good morning", 1, false)] }),
			{ speaker: "Unknown speaker", confirmed: [], pending: [] },
		);
		const oldFirst = applyBundle(applyBundle(drafted, { speaker: "Unknown speaker", confirmed: [], pending: [] }), {
			speaker: "Carol",
			confirmed: [],
			pending: [seg("u1", "Carol", "good morning", 1, false)],
		});
		expect(view(orderedLines(nameFirst))).toEqual(["u1:Carol:good morning:p"]);
		expect(view(orderedLines(oldFirst))).toEqual(["u1:Carol:good morning:p"]);
	});

	it("a bundle leaves confirmed lines of its speaker alone and takes the bundle's speaker when a segment names none", () => {
		let state = fromSegments([seg("a1", "Alice", "One.", 1, true)]);
		state = applyBundle(state, {
			speaker: "Alice",
			confirmed: [],
			pending: [{ segment_id: "a2", text: "two", start: 2, completed: false }],
		});
		expect(view(orderedLines(state))).toEqual(["a1:Alice:One.:c", "a2:Alice:two:p"]);
	});

	it("does not change the state it was given", () => {
		const state = fromSegments([seg("a1", "Alice", "hel", 1, false)]);
		applyBundle(state, { speaker: "Alice", confirmed: [seg("a1", "Alice", "Hello.", 1, true)], pending: [] });
		expect(view(orderedLines(state))).toEqual(["a1:Alice:hel:p"]);
	});
});
