import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import { db } from "../db";
import type { Env } from "../env";
import { invalidField } from "../errors";
import { isoTimestamp, type Reader, utcIso } from "../meetings/meeting-queries";
import { readableBy } from "../meetings/meeting-store";
import { matchExpression } from "./search-query";
import { MATCH_CLOSE, MATCH_OPEN, parseMarkedSnippet } from "./snippet";

/** Full-text search over the transcripts a reader may read (GET /transcripts/search, docs/api.md#search). */

export const SearchQuery = z.object({
	q: z.string().min(1).max(200).openapi({ description: 'Words to find (all of them); "a phrase" in quotes; `word*` for a prefix' }),
	platform: z.enum(["google_meet", "zoom", "teams", "unknown"]).optional(),
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

/** Words of context FTS5 keeps around a match (its maximum is 64). */
const SNIPPET_TOKENS = 24;

/** The speaker column counts for less than what was said: a name in a query is mostly a filter. */
const RANK = sql`bm25(transcript_search, 1.0, 0.5)`;

interface HitRow {
	id: number;
	total: number;
	marked: string;
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
}

/** When a segment was said: its own time, else its meeting's start (both ISO 8601, compared as instants). */
const SAID_AT = sql`julianday(coalesce(transcript_segments.absolute_start_time, meetings.start_time))`;

/** The conditions every row of a search meets: the match, readable by the reader, and the filters. */
function searchConditions(reader: Reader, q: SearchQuery, match: string): SQL {
	const conditions: SQL[] = [sql`transcript_search MATCH ${match}`, readableBy(reader.userId)];
	if (q.platform) conditions.push(sql`meetings.platform = ${q.platform}`);
	if (q.speaker) conditions.push(sql`transcript_segments.speaker = ${q.speaker} COLLATE NOCASE`);
	if (q.from) conditions.push(sql`${SAID_AT} >= julianday(${utcIso(q.from)})`);
	if (q.to) conditions.push(sql`${SAID_AT} <= julianday(${utcIso(q.to)})`);
	return sql.join(conditions, sql` AND `);
}

const FROM_INDEX = sql`FROM transcript_search
	JOIN transcript_segments ON transcript_segments.id = transcript_search.rowid
	JOIN meetings ON meetings.id = transcript_segments.meeting_id`;

/**
 * One page of hits, best first, with the total over all pages, in one statement: every match is
 * ranked (ids and scores only), and the snippet and the record are read for the page alone.
 * 422 for a query with nothing to search for.
 */
export async function searchTranscripts(env: Env, reader: Reader, q: SearchQuery): Promise<SearchResults> {
	if (q.from && q.to && Date.parse(utcIso(q.from)) > Date.parse(utcIso(q.to))) throw invalidField(["query", "from"], "from is after to");
	const match = matchExpression(q.q);
	const where = searchConditions(reader, q, match);
	const rows = await db(env).all<HitRow>(
		sql`WITH matches AS MATERIALIZED (SELECT transcript_search.rowid AS id, ${RANK} AS score ${FROM_INDEX} WHERE ${where}),
			page AS MATERIALIZED (SELECT id, score FROM matches ORDER BY score, id LIMIT ${q.limit} OFFSET ${q.offset})
			SELECT page.id, (SELECT count(*) FROM matches) AS total,
				snippet(transcript_search, 0, ${MATCH_OPEN}, ${MATCH_CLOSE}, '…', ${SNIPPET_TOKENS}) AS marked,
				meetings.id AS meeting_id, meetings.platform, meetings.native_meeting_id,
				CASE WHEN json_type(meetings.data, '$.title') = 'text' AND trim(json_extract(meetings.data, '$.title')) <> ''
					THEN json_extract(meetings.data, '$.title') END AS title,
				meetings.start_time AS meeting_start_time, transcript_segments.segment_id, transcript_segments.speaker,
				transcript_segments.start, transcript_segments.end, transcript_segments.absolute_start_time
			FROM page JOIN transcript_search ON transcript_search.rowid = page.id
				JOIN transcript_segments ON transcript_segments.id = page.id
				JOIN meetings ON meetings.id = transcript_segments.meeting_id
			WHERE transcript_search MATCH ${match}
			ORDER BY page.score, page.id`,
	);
	const total = rows[0]?.total ?? (q.offset > 0 ? await countMatches(env, where) : 0);
	const hits = rows.map(({ id: _, total: __, marked, ...hit }) => ({ ...hit, ...parseMarkedSnippet(marked) }));
	return { q: q.q, total, limit: q.limit, offset: q.offset, hits };
}

/** The number of matches, when the page asked for lies past them all. */
async function countMatches(env: Env, where: SQL): Promise<number> {
	const [row] = await db(env).all<{ total: number }>(sql`SELECT count(*) AS total ${FROM_INDEX} WHERE ${where}`);
	return row?.total ?? 0;
}
