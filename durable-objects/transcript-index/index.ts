import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../src/env";
import { AlarmTimers, sqlTimerStore, type TimerHandlers } from "../shared/alarm-timers";
import { type PartitionAnswer, type PartitionQuery, rank, snippetsOf } from "./ranking";
import { INDEX_SCHEMA } from "./storage";
import { catchUp, dropMeeting } from "./sync";

export type { PartitionAnswer, PartitionFilters, PartitionQuery, RankedHit } from "./ranking";

/**
 * The search index of one scope (docs/api.md#search): a workspace's meetings, or the meetings of
 * a user bound to no workspace. Everyone who may search it may read every row in it, so its
 * bm25 statistics hold no word a searcher could not read anyway (security review finding 2),
 * and a search costs what the scope's own transcripts cost (finding 1). It pulls its scope's
 * changes from D1 (migrations/0016_search_partitions.sql) before it answers.
 */

/** The RPC surface: what the search (src/search/partitions.ts) and the cron call on a partition's stub. */
export const TRANSCRIPT_INDEX_RPC = ["search", "catchUp", "snippets", "forgetMeeting"] as const;

/** Segments pulled before a search answers; past it the search answers 503 and the rest is pulled by alarm. */
const PULL_PER_SEARCH = 2_000;
const PULL_PER_ALARM = 20_000;

/** The partition's one timer: `pull`, the rest of a catch-up too long to pull before a search answered. */
type IndexTimerName = "pull";

export class TranscriptIndex extends DurableObject<Env> {
	/** Pulls run one after another: two at once would apply the same changes twice. */
	#pulling: Promise<boolean> = Promise.resolve(true);
	/** A pull waiting its turn: it will read D1 after every caller that joins it arrived, so they share it. */
	#queued: Promise<boolean> | null = null;
	readonly #timers: AlarmTimers<IndexTimerName>;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		ctx.storage.sql.exec(INDEX_SCHEMA);
		this.#timers = new AlarmTimers<IndexTimerName>(ctx.storage, sqlTimerStore(ctx.storage));
	}

	async search(query: PartitionQuery): Promise<PartitionAnswer> {
		if (!(await this.catchUp(query.scope))) return { state: "behind" };
		return { state: "ready", ...rank(this.ctx.storage.sql, query) };
	}

	/** Pulls what is waiting (the cron asks partitions with changes logged); what is left goes on by alarm. */
	async catchUp(scope: string): Promise<boolean> {
		this.ctx.storage.sql.exec("INSERT INTO pulled (id, seq, scope) VALUES (1, 0, ?) ON CONFLICT (id) DO NOTHING", scope);
		const done = await this.#pull(scope, PULL_PER_SEARCH);
		if (!done) await this.#timers.set("pull", Date.now());
		return done;
	}

	/**
	 * A meeting left D1, or its search rows outlived their retention (docs/retention.md): its rows
	 * go now, and the scope's changes are pulled (D1 no longer gives them back); how many rows went.
	 */
	async forgetMeeting(scope: string, meetingId: number): Promise<number> {
		const sql = this.ctx.storage.sql;
		const held = sql.exec<{ n: number }>("SELECT count(*) AS n FROM segments WHERE meeting_id = ?", meetingId).one().n;
		this.ctx.storage.transactionSync(() => dropMeeting(this.ctx.storage, meetingId));
		await this.catchUp(scope);
		return held;
	}

	/** Marked snippets of some rows, for the page a search across partitions picked. */
	async snippets(match: string, ids: number[]): Promise<{ id: number; marked: string }[]> {
		return snippetsOf(this.ctx.storage.sql, match, ids);
	}

	/** Runs the `pull` timer (shared/alarm-timers.ts: it goes once its pull succeeded, else it retries). */
	override alarm(): Promise<void> {
		return this.#timers.fire(this.#timerActions);
	}

	readonly #timerActions: TimerHandlers<IndexTimerName> = {
		// What one alarm could not pull goes on at once, on the next: set again, due later than the one that fired.
		pull: async (timer) => {
			const scope = this.ctx.storage.sql.exec<{ scope: string }>("SELECT scope FROM pulled").toArray()[0]?.scope;
			if (scope && !(await this.#pull(scope, PULL_PER_ALARM))) await this.#timers.set("pull", Math.max(Date.now(), timer.dueMs + 1));
		},
	};

	#pull(scope: string, budget: number): Promise<boolean> {
		if (this.#queued) return this.#queued;
		const next = this.#pulling
			.catch(() => false)
			.then(() => {
				this.#queued = null;
				return catchUp(this.env, this.ctx.storage, scope, budget);
			});
		this.#queued = next;
		this.#pulling = next;
		return next;
	}
}
