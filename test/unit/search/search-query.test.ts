import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/errors";
import { MAX_SEARCH_TERMS, matchExpression } from "../../../src/search/search-query";
import { parseMarkedSnippet, SNIPPET_MAX_CHARS } from "../../../src/search/snippet";

describe("matchExpression", () => {
	it("quotes every word, so FTS5 operators and column filters are words", () => {
		expect(matchExpression("budget review")).toBe('"budget" "review"');
		expect(matchExpression("a OR b NOT c")).toBe('"a" "OR" "b" "NOT" "c"');
		expect(matchExpression("speaker:alice NEAR(x")).toBe('"speaker:alice" "NEAR(x"');
		expect(matchExpression("-x ^y {z}")).toBe('"-x" "^y" "{z}"');
	});

	it("keeps a quoted phrase whole, closes an unclosed one, and splits a word at a quote", () => {
		expect(matchExpression('"action items" owner')).toBe('"action items" "owner"');
		expect(matchExpression('ship "next week')).toBe('"ship" "next week"');
		expect(matchExpression('a"b')).toBe('"a" "b"');
	});

	it("turns a trailing star into a prefix search of three characters or more in its last token", () => {
		expect(matchExpression("budg*")).toBe('"budg" *');
		expect(matchExpression("bud**")).toBe('"bud" *');
		expect(matchExpression("k-mea*")).toBe('"k-mea" *');
		for (const q of ["b*", "bu**", "k-*", "budget-k*", "x.é*"])
			expect(() => matchExpression(q), q).toThrow(
				expect.objectContaining({
					status: 422,
					detail: [expect.objectContaining({ loc: ["query", "q"], msg: expect.stringMatching(/too short/) })],
				}),
			);
	});

	it("drops control characters and units with no letter or digit", () => {
		expect(matchExpression("ott\u0000er - * 🎉 ok")).toBe('"ott" "er" "ok"');
	});

	it("refuses a query with nothing to search for, or too many terms, as a 422 on q", () => {
		for (const q of ['"', "*", "-", "()", '""', "🎉", " "]) {
			expect(() => matchExpression(q), q).toThrow(ApiError);
			try {
				matchExpression(q);
			} catch (err) {
				expect((err as ApiError).status).toBe(422);
				expect((err as ApiError).detail).toMatchObject([{ loc: ["query", "q"] }]);
			}
		}
		expect(() => matchExpression("w ".repeat(MAX_SEARCH_TERMS))).not.toThrow();
		expect(() => matchExpression("w ".repeat(MAX_SEARCH_TERMS + 1))).toThrow(
			expect.objectContaining({
				status: 422,
				detail: [expect.objectContaining({ msg: `The query has more than ${MAX_SEARCH_TERMS} terms` })],
			}),
		);
	});
});

describe("parseMarkedSnippet", () => {
	it("takes the marks out and answers their code-point offsets", () => {
		expect(parseMarkedSnippet("🎉 \u0001Café\u0002 and \u0001more\u0002…")).toEqual({
			snippet: "🎉 Café and more…",
			highlights: [
				[2, 6],
				[11, 15],
			],
		});
	});

	it("bounds a long snippet to a window around the first match, keeping its marks in place", () => {
		const long = `${"x".repeat(1000)} \u0001needle\u0002 ${"y".repeat(1000)}`;
		const { snippet, highlights } = parseMarkedSnippet(long);
		expect([...snippet].length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS);
		expect(snippet.startsWith("…")).toBe(true);
		expect(snippet.endsWith("…")).toBe(true);
		expect(highlights).toHaveLength(1);
		const [start, end] = highlights[0] ?? [0, 0];
		expect([...snippet].slice(start, end).join("")).toBe("needle");
	});
});
