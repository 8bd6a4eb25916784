// Drizzle store (SQL text through drizzle's `sql`: an id list through json_each, and a title read with json_extract).
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { db } from "../db";
import type { Env } from "../env";
import { invalidField } from "../errors";
import { isoTimestamp, type Reader, utcIso } from "../meetings/meeting-queries";
import { readableBy } from "../meetings/meeting-store";
import { PLATFORMS } from "../platforms";
import { partitionsOf, searchPartitions } from "./partitions";
import { matchExpression } from "./search-query";
import { parseMarkedSnippet } from "./snippet";

/** Full-text search over the transcripts a reader may read (GET /transcripts/search, docs/api.md#search). */

export const SearchQuery = z.object({
	q: z.string().min(1).max(200).openapi({ description: 'Words to find (all of them); "a phrase" in quotes; `word*` for a prefix' }),
	platform: z.enum([...PLATFORMS, "unknown"]).optional(),
	speaker: z
		.string()
		.min(1)
		.max(200)
		.optional()
		.openapi({ description: "Only this speaker's segments (the whole name as shown, ASCII letters in any case)" }),
	from: isoTimestamp
		.optional()
		.openapi({ description: "Only segments said at or after this time (the segment's own time, else its meeting's start)" }),
	to: isoTimestamp.optional().openapi({ description: "Only segments said at or before this time" }),
	limit: z.coerce.number().int().min(1).max(100).default(20),
	offset: z.coerce.number().int().min(0).max(100_000).default(0),
});
export type SearchQuery = z.infer<typeof SearchQuery>;

export const SearchHit = z
	.object({
		meeting_id: z.number().int(),
		platform: z.string(),
		native_meeting_id: z.string().nullable(),
		title: z.string().nullable(),
		meeting_start_time: z.string().nullable(),
		segment_id: z.string(),
		speaker: z.string(),
		start: z.number(),
		end: z.number(),
		absolute_start_time: z.string().nullable(),
		source: z.string().nullable().openapi({
			description: "Where the segment's text came from: `captions` or the engine's name; null for segments stored before this was kept",
		}),
		snippet: z.string().openapi({ description: "Plain text around the match (never HTML): render it as text" }),
		highlights: z
			.array(z.tuple([z.number().int(), z.number().int()]))
			.openapi({ description: "Where the matched terms are in `snippet`: [start, end) offsets in Unicode code points" }),
	})
	.openapi("SearchHit");

export const SearchResults = z
	.object({
		q: z.string(),
		total: z.number().int(),
		limit: z.number().int(),
		offset: z.number().int(),
		hits: z.array(SearchHit),
	})
	.openapi("SearchResults");
export type SearchResults = z.infer<typeof SearchResults>;

interface HitRecord {
	id: number;
	meeting_id: number;
	platform: string;
	native_meeting_id: string | null;
	title: string | null;
	meeting_start_time: string | null;
	segment_id: string;
	speaker: string;
	start: number;
	end: number;
	absolute_start_time: string | null;
	source: string | null;
}

/**
 * One page of hits, best first, with the total over all pages. The matches are ranked in the
 * reader's search partitions (src/search/partitions.ts); D1 answers only the page's records,
 * read by id and again only where the reader may read them.
 * 422 for a query with nothing to search for or past the complexity caps; 503 past the time budget.
 */
export async function searchTranscripts(env: Env, reader: Reader, q: SearchQuery): Promise<SearchResults> {
	if (q.from && q.to && Date.parse(utcIso(q.from)) > Date.parse(utcIso(q.to))) throw invalidField(["query", "from"], "from is after to");
	const match = matchExpression(q.q);
	const filters = {
		...(q.platform ? { platform: q.platform } : {}),
		...(q.speaker ? { speaker: q.speaker } : {}),
		...(q.from ? { from: utcIso(q.from) } : {}),
		...(q.to ? { to: utcIso(q.to) } : {}),
	};
	const ranked = await searchPartitions(env, await partitionsOf(env, reader.userId), match, filters, q.offset, q.limit);
	const records = await hitRecords(
		env,
		reader,
		ranked.hits.map((hit) => hit.id),
	);
	const hits = ranked.hits.flatMap(({ id, marked }) => {
		const record = records.get(id);
		if (!record) return [];
		const { id: _, ...hit } = record;
		return [{ ...hit, ...parseMarkedSnippet(marked) }];
	});
	return { q: q.q, total: ranked.total, limit: q.limit, offset: q.offset, hits };
}

/** The page's segments and meetings by segment rowid, those the reader may still read. */
async function hitRecords(env: Env, reader: Reader, ids: number[]): Promise<Map<number, HitRecord>> {
	if (ids.length === 0) return new Map();
	const rows = await db(env).all<HitRecord>(
		sql`SELECT transcript_segments.id, meetings.id AS meeting_id, meetings.platform, meetings.native_meeting_id,
			CASE WHEN json_type(meetings.data, '$.title') = 'text' AND trim(json_extract(meetings.data, '$.title')) <> ''
				THEN json_extract(meetings.data, '$.title') END AS title,
			meetings.start_time AS meeting_start_time, transcript_segments.segment_id, transcript_segments.speaker,
			transcript_segments.start, transcript_segments.end, transcript_segments.absolute_start_time, transcript_segments.source
		FROM transcript_segments JOIN meetings ON meetings.id = transcript_segments.meeting_id
		WHERE transcript_segments.id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) AND ${readableBy(reader.userId)}`,
	);
	return new Map(rows.map((row) => [row.id, row]));
}
