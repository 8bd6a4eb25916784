import type { PartitionQuery, RankedHit } from "../../src/search/partition-query";
import { MATCH_CLOSE, MATCH_OPEN } from "../../src/search/snippet";

export type { PartitionAnswer, PartitionFilters, PartitionQuery, RankedHit } from "../../src/search/partition-query";

/** Words of context FTS5 keeps around a match (its maximum is 64). */
const SNIPPET_TOKENS = 24;

/** The speaker column counts for less than what was said: a name in a query is mostly a filter. */
const RANK = "bm25(segment_words, 1.0, 0.5)";
const SNIPPET = `snippet(segment_words, 0, '${MATCH_OPEN}', '${MATCH_CLOSE}', '…', ${SNIPPET_TOKENS})`;

/** Every match ranked, ids and scores only; the snippets and the total for the rows answered. */
export function rank(sql: SqlStorage, query: PartitionQuery): { total: number; hits: RankedHit[] } {
	const { where, params } = conditions(query);
	const rows = sql
		.exec<{ id: number; score: number; total: number; marked: string | null }>(
			`WITH matches AS MATERIALIZED (SELECT segment_words.rowid AS id, ${RANK} AS score ${FROM_INDEX} WHERE ${where}),
			page AS MATERIALIZED (SELECT id, score FROM matches ORDER BY score, id LIMIT ? OFFSET ?)
			SELECT page.id, page.score, (SELECT count(*) FROM matches) AS total,
				${query.snippets ? SNIPPET : "NULL"} AS marked
			FROM page JOIN segment_words ON segment_words.rowid = page.id
			WHERE segment_words MATCH ?
			ORDER BY page.score, page.id`,
			...params,
			query.take,
			query.skip,
			query.match,
		)
		.toArray();
	const total =
		rows[0]?.total ??
		(query.skip > 0 ? (sql.exec<{ n: number }>(`SELECT count(*) AS n ${FROM_INDEX} WHERE ${where}`, ...params).one().n ?? 0) : 0);
	return { total, hits: rows.map(({ id, score, marked }) => (marked === null ? { id, score } : { id, score, marked })) };
}

/** Marked snippets of some rows, for the page a search across partitions picked. */
export function snippetsOf(sql: SqlStorage, match: string, ids: number[]): { id: number; marked: string }[] {
	return sql
		.exec<{ id: number; marked: string }>(
			`SELECT rowid AS id, ${SNIPPET} AS marked FROM segment_words
			WHERE segment_words MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
			match,
			JSON.stringify(ids),
		)
		.toArray();
}

const FROM_INDEX = `FROM segment_words JOIN segments ON segments.id = segment_words.rowid JOIN meetings ON meetings.id = segments.meeting_id`;

/** When a segment was said: its own time, else its meeting's start (both ISO 8601, compared as instants). */
const SAID_AT = "julianday(coalesce(segments.said_at, meetings.start_time))";

function conditions(query: PartitionQuery): { where: string; params: (string | number)[] } {
	const where = ["segment_words MATCH ?"];
	const params: (string | number)[] = [query.match];
	const { platform, speaker, from, to, owner } = query.filters;
	if (platform) {
		where.push("meetings.platform = ?");
		params.push(platform);
	}
	if (speaker) {
		where.push("segments.speaker = ? COLLATE NOCASE");
		params.push(speaker);
	}
	if (from) {
		where.push(`${SAID_AT} >= julianday(?)`);
		params.push(from);
	}
	if (to) {
		where.push(`${SAID_AT} <= julianday(?)`);
		params.push(to);
	}
	if (owner !== undefined) {
		where.push("meetings.user_id = ?");
		params.push(owner);
	}
	return { where: where.join(" AND "), params };
}
