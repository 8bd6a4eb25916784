import { env, runInDurableObject } from "cloudflare:test";
import type { TranscriptIndex } from "../../../durable-objects/transcript-index";
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

/** The search partition of a scope (`u:<user id>` or `w:<workspace>`). */
export const partitionOf = (scope: string) => env.TRANSCRIPT_INDEX.get(env.TRANSCRIPT_INDEX.idFromName(scope));

/** Rows a partition holds, per table, as its own SQLite counts them. */
export function partitionRows(scope: string) {
	return runInDurableObject(partitionOf(scope), async (_index: TranscriptIndex, state) => {
		const count = (table: string) => state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n;
		// FTS5's own check that its index agrees with its stored text.
		state.storage.sql.exec("INSERT INTO segment_words (segment_words, rank) VALUES ('integrity-check', 1)");
		return { words: count("segment_words"), segments: count("segments"), meetings: count("meetings") };
	});
}

/** A partition as it was before migration 0016: empty, and nothing logged for it in D1. */
export async function emptyPartition(scope: string): Promise<void> {
	await runInDurableObject(partitionOf(scope), async (_index: TranscriptIndex, state) => {
		for (const table of ["segment_words", "segments", "meetings", "refills"]) state.storage.sql.exec(`DELETE FROM ${table}`);
	});
	await env.DB.prepare("DELETE FROM search_changes WHERE scope = ?").bind(scope).run();
}
