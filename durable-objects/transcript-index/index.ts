import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../src/env";
import { MATCH_CLOSE, MATCH_OPEN } from "../../src/search/snippet";
import { INDEX_SCHEMA } from "./schema";
import { catchUp } from "./sync";

/**
 * The search index of one scope (docs/api.md#search): a workspace's meetings, or the meetings of
 * a user bound to no workspace. Everyone who may search it may read every row in it, so its
 * bm25 statistics hold no word a searcher could not read anyway (security review finding 2),
 * and a search costs what the scope's own transcripts cost (finding 1). It pulls its scope's
 * changes from D1 (migrations/0016_search_partitions.sql) before it answers.
 */

export interface PartitionFilters {
	platform?: string;
	speaker?: string;
	/** ISO 8601 instants, compared by julianday. */
	from?: string;
	to?: string;
	/** Only this user's meetings: a workspace the owner is no longer a member of. */
	owner?: number;
}

export interface PartitionQuery {
	scope: string;
	match: string;
	filters: PartitionFilters;
	skip: number;
	take: number;
	/** Marked snippets for the rows answered (one partition: the page itself). */
	snippets: boolean;
}

export interface RankedHit {
	id: number;
	score: number;
	marked?: string;
}

export type PartitionAnswer = { state: "ready"; total: number; hits: RankedHit[] } | { state: "behind" };

/** Segments pulled before a search answers; past it the search answers 503 and the rest is pulled by alarm. */
const PULL_PER_SEARCH = 2_000;
const PULL_PER_ALARM = 20_000;

/** Words of context FTS5 keeps around a match (its maximum is 64). */
const SNIPPET_TOKENS = 24;

/** The speaker column counts for less than what was said: a name in a query is mostly a filter. */
const RANK = "bm25(segment_words, 1.0, 0.5)";
const SNIPPET = `snippet(segment_words, 0, '${MATCH_OPEN}', '${MATCH_CLOSE}', '…', ${SNIPPET_TOKENS})`;

export class TranscriptIndex extends DurableObject<Env> {
	/** Pulls run one after another: two at once would apply the same changes twice. */
	private pulling: Promise<boolean> = Promise.resolve(true);
	/** A pull waiting its turn: it will read D1 after every caller that joins it arrived, so they share it. */
	private queued: Promise<boolean> | null = null;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		ctx.storage.sql.exec(INDEX_SCHEMA);
	}

	async search(query: PartitionQuery): Promise<PartitionAnswer> {
		if (!(await this.catchUp(query.scope))) return { state: "behind" };
		return { state: "ready", ...this.rank(query) };
	}

	/** Pulls what is waiting (the cron asks partitions with changes logged); what is left goes on by alarm. */
	async catchUp(scope: string): Promise<boolean> {
		this.ctx.storage.sql.exec("INSERT INTO pulled (id, seq, scope) VALUES (1, 0, ?) ON CONFLICT (id) DO NOTHING", scope);
		const done = await this.pull(scope, PULL_PER_SEARCH);
		if (!done) await this.ctx.storage.setAlarm(Date.now());
		return done;
	}

	/** Marked snippets of some rows, for the page a search across partitions picked. */
	async snippets(match: string, ids: number[]): Promise<{ id: number; marked: string }[]> {
		return this.ctx.storage.sql
			.exec<{ id: number; marked: string }>(
				`SELECT rowid AS id, ${SNIPPET} AS marked FROM segment_words
				WHERE segment_words MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
				match,
				JSON.stringify(ids),
			)
			.toArray();
	}

	override async alarm(): Promise<void> {
		const scope = this.ctx.storage.sql.exec<{ scope: string }>("SELECT scope FROM pulled").toArray()[0]?.scope;
		if (scope && !(await this.pull(scope, PULL_PER_ALARM))) await this.ctx.storage.setAlarm(Date.now());
	}

	private pull(scope: string, budget: number): Promise<boolean> {
		if (this.queued) return this.queued;
		const next = this.pulling
			.catch(() => false)
			.then(() => {
				this.queued = null;
				return catchUp(this.env, this.ctx.storage, scope, budget);
			});
		this.queued = next;
		this.pulling = next;
		return next;
	}

	/** Every match ranked, ids and scores only; the snippets and the total for the rows answered. */
	private rank(query: PartitionQuery): { total: number; hits: RankedHit[] } {
		const { where, params } = conditions(query);
		const sql = this.ctx.storage.sql;
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
