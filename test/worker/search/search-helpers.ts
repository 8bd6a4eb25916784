import type { SearchResults } from "../../../src/search/transcript-search";
import { SearchResults as SearchResultsSchema } from "../../../src/search/transcript-search";
import { eventually } from "../../shared/wait";
import { call, expectDocumented } from "../support";

export type { SearchResults };
export type SearchHit = SearchResults["hits"][number];

/** GET /transcripts/search with these query parameters, checked against its documented schema. */
export async function search(headers: Record<string, string>, params: Record<string, string | number>): Promise<SearchResults> {
	const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
	return expectDocumented(SearchResultsSchema, await call("GET", `/transcripts/search?${query}`, { headers }));
}

/** Waits until a search has `count` hits (segments reach D1 through the meeting's room). */
export function searchUntil(
	headers: Record<string, string>,
	params: Record<string, string | number>,
	count: number,
): Promise<SearchResults> {
	return eventually(`${count} hits for ${JSON.stringify(params)}`, async () => {
		const found = await search(headers, params);
		return found.total === count ? found : undefined;
	});
}

/** The highlighted parts of a hit's snippet, cut at its code-point offsets. */
export function highlighted(hit: SearchHit): string[] {
	const chars = [...hit.snippet];
	return hit.highlights.map(([start, end]) => chars.slice(start, end).join(""));
}

/** A word no other test's segments contain, so a search reads only what this test made. */
export const uniqueWord = (stem: string) => `${stem}${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
