/**
 * Raw SQL store (aggregates over two windows read in one D1 batch).
 * Join health (docs/bot-fleet.md#join-health): per platform, over the last hour and the last
 * day, how bots' joins ended, so an operator sees a platform's pages drift within minutes.
 * Computed in D1 from the meetings whose join reached an outcome in the window: admitted
 * (`start_time`), or ended before admission (`end_time`). Two statements in one batch, each
 * bounded by the day and read through `meetings_join_outcome` (migrations/0015).
 *
 * What counts:
 * - an **attempt** is a join a bot made on the platform that reached an outcome: it was admitted
 *   (`joined`), or it failed before admission (`failed`, by reason, cause and step);
 * - a meeting that **ended before admission** without failing (its user stopped it, the meeting
 *   ended while the bot waited) is no attempt: nothing on the platform went wrong;
 * - a **fleet failure** (no host took the meeting, its host was lost or shut down, or it failed
 *   before any bot began to join) is no attempt either: the platform never had its say. Fleet
 *   trouble is counted apart, so it cannot hide (or fake) a platform's drift.
 */
import { CompletionReason, FailureCause, JoinStep, PLATFORMS } from "../bot-channel/protocol";
import type { Env } from "../env";

/** The windows, newest first; each is "the last N seconds" up to now. */
export const JOIN_HEALTH_WINDOWS = [
	{ window: "1h", seconds: 3_600 },
	{ window: "24h", seconds: 86_400 },
] as const;
export type JoinHealthWindowName = (typeof JOIN_HEALTH_WINDOWS)[number]["window"];

/** Causes that mean the fleet, not the platform, ended a join (`help_timeout` is the platform's: a screen no driver knew). */
export const FLEET_CAUSES = ["no_bot_capacity", "bot_host_lost", "host_drained"] as const satisfies readonly FailureCause[];

/** A value stored outside its list (a record of another release) is counted, as `other`. */
export const OTHER = "other";

export interface JoinFailureCount {
	/** `completion_reason`; null when the failure has none (the bot broke with no reason of the table). */
	reason: string | null;
	/** `data.failure_cause`, when set. */
	cause: string | null;
	/** `data.join_step`: where the join stopped; null when the bot reported none. */
	step: string | null;
	count: number;
}

export interface PlatformJoinHealth {
	platform: string;
	/** `joined + failed`: joins a bot made on the platform that reached an outcome. */
	attempts: number;
	joined: number;
	failed: number;
	/** `joined / attempts`; null without attempts. */
	success_rate: number | null;
	/** From the bot's first `joining` to `active`, over the joins admitted in the window that have both times. */
	admission_seconds: { measured: number; p50: number | null; p95: number | null };
	/** The failed attempts by reason, cause and step, most first. */
	failures: JoinFailureCount[];
	/** Not attempts: failures of the fleet, most first. */
	fleet_failures: { reason: string | null; cause: string | null; count: number }[];
	/** Not attempts: meetings that ended before admission without failing (`stopped`, `left_alone`), most first. */
	ended_before_admission: { reason: string | null; count: number }[];
}

export interface JoinHealthWindow {
	window: JoinHealthWindowName;
	/** The window's start. */
	since: string;
	/** The three platforms always (a platform with no attempts has zero figures), then any other seen. */
	platforms: PlatformJoinHealth[];
}

export interface JoinHealth {
	generated_at: string;
	windows: JoinHealthWindow[];
}

const FLEET_CAUSE_LIST = FLEET_CAUSES.map((cause) => `'${cause}'`).join(", ");

export const joinHealthQueries = {
	/** Each join's outcome, grouped; `last_hour` and `last_day` count the group in each window. */
	outcomes: `SELECT platform,
			CASE
				WHEN start_time IS NOT NULL THEN 'joined'
				WHEN status = 'completed' THEN 'ended'
				WHEN failure_stage = 'requested' OR json_extract(data, '$.failure_cause') IN (${FLEET_CAUSE_LIST}) THEN 'fleet'
				ELSE 'failed'
			END AS outcome,
			CASE WHEN start_time IS NULL THEN completion_reason END AS reason,
			CASE WHEN start_time IS NULL THEN json_extract(data, '$.failure_cause') END AS cause,
			CASE WHEN start_time IS NULL AND status = 'failed' THEN json_extract(data, '$.join_step') END AS step,
			sum(coalesce(start_time, end_time) >= ?) AS last_hour,
			count(*) AS last_day
		FROM meetings
		WHERE coalesce(start_time, end_time) >= ?
		GROUP BY platform, outcome, reason, cause, step`,
	/**
	 * Time to admission per platform and window, its quantiles by nearest rank: the value at
	 * position ceil(q × n) of the sorted times, ceil written in integers as (n × 100q + 99) / 100.
	 * The day's admitted joins are read once (MATERIALIZED), through the index: inlined into both
	 * windows, the planner would read one of them by scanning the whole table in platform order.
	 */
	admission: `WITH admitted AS MATERIALIZED (
			SELECT platform, coalesce(start_time, end_time) >= ? AS recent,
				(julianday(start_time) - julianday(joining_at)) * 86400.0 AS seconds
			FROM meetings
			WHERE coalesce(start_time, end_time) >= ? AND start_time IS NOT NULL AND joining_at IS NOT NULL
		), spans AS (
			SELECT platform, '24h' AS span, seconds FROM admitted
			UNION ALL
			SELECT platform, '1h' AS span, seconds FROM admitted WHERE recent
		), ranked AS (
			SELECT platform, span, seconds,
				row_number() OVER (PARTITION BY platform, span ORDER BY seconds) AS position,
				count(*) OVER (PARTITION BY platform, span) AS measured
			FROM spans
		)
		SELECT platform, span, measured,
			max(CASE WHEN position = (measured * 50 + 99) / 100 THEN seconds END) AS p50,
			max(CASE WHEN position = (measured * 95 + 99) / 100 THEN seconds END) AS p95
		FROM ranked
		GROUP BY platform, span, measured`,
};

interface OutcomeRow {
	platform: string;
	outcome: "joined" | "ended" | "fleet" | "failed";
	reason: string | null;
	cause: string | null;
	step: string | null;
	last_hour: number;
	last_day: number;
}

interface AdmissionRow {
	platform: string;
	span: JoinHealthWindowName;
	measured: number;
	p50: number | null;
	p95: number | null;
}

export async function joinHealth(env: Env, now: number): Promise<JoinHealth> {
	const [hour, day] = JOIN_HEALTH_WINDOWS.map(({ seconds }) => new Date(now - seconds * 1000).toISOString());
	const [outcomes, admission] = await env.DB.batch<OutcomeRow | AdmissionRow>([
		env.DB.prepare(joinHealthQueries.outcomes).bind(hour, day),
		env.DB.prepare(joinHealthQueries.admission).bind(hour, day),
	]);
	const outcomeRows = (outcomes?.results ?? []) as OutcomeRow[];
	const admissionRows = (admission?.results ?? []) as AdmissionRow[];
	const seen = [...new Set(outcomeRows.map((row) => row.platform))].filter((p) => !(PLATFORMS as readonly string[]).includes(p)).sort();
	const platforms = [...PLATFORMS, ...seen];
	return {
		generated_at: new Date(now).toISOString(),
		windows: JOIN_HEALTH_WINDOWS.map(({ window, seconds }) => ({
			window,
			since: new Date(now - seconds * 1000).toISOString(),
			platforms: platforms.map((platform) =>
				platformFigures(
					platform,
					outcomeRows
						.filter((row) => row.platform === platform)
						.map((row) => ({ ...row, n: window === "1h" ? row.last_hour : row.last_day })),
					admissionRows.find((row) => row.platform === platform && row.span === window),
				),
			),
		})),
	};
}

function platformFigures(platform: string, rows: (OutcomeRow & { n: number })[], admission: AdmissionRow | undefined): PlatformJoinHealth {
	const counted = rows.filter((row) => row.n > 0);
	const total = (outcome: OutcomeRow["outcome"]) => counted.filter((row) => row.outcome === outcome).reduce((sum, row) => sum + row.n, 0);
	const joined = total("joined");
	const failed = total("failed");
	const attempts = joined + failed;
	const of = (outcome: OutcomeRow["outcome"]) => counted.filter((row) => row.outcome === outcome);
	return {
		platform,
		attempts,
		joined,
		failed,
		success_rate: attempts > 0 ? joined / attempts : null,
		admission_seconds: {
			measured: admission?.measured ?? 0,
			p50: rounded(admission?.p50),
			p95: rounded(admission?.p95),
		},
		failures: tally(of("failed"), (row) => ({
			reason: known(CompletionReason, row.reason),
			cause: known(FailureCause, row.cause),
			step: known(JoinStep, row.step),
		})),
		fleet_failures: tally(of("fleet"), (row) => ({ reason: known(CompletionReason, row.reason), cause: known(FailureCause, row.cause) })),
		ended_before_admission: tally(of("ended"), (row) => ({ reason: known(CompletionReason, row.reason) })),
	};
}

/** Rows counted under the key `keyOf` gives them (values outside their list merge into `other`), most first. */
function tally<K extends Record<string, string | null>>(
	rows: (OutcomeRow & { n: number })[],
	keyOf: (row: OutcomeRow) => K,
): (K & { count: number })[] {
	const counts = new Map<string, K & { count: number }>();
	for (const row of rows) {
		const key = keyOf(row);
		const id = JSON.stringify(key);
		const entry = counts.get(id) ?? { ...key, count: 0 };
		entry.count += row.n;
		counts.set(id, entry);
	}
	// Ties in a fixed order (by the key's text, code point by code point), so the same figures always read the same.
	const order = (a: K & { count: number }, b: K & { count: number }) => {
		const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
		return x < y ? -1 : x > y ? 1 : 0;
	};
	return [...counts.values()].sort((a, b) => b.count - a.count || order(a, b));
}

/** A stored value as its list has it, null when absent, `other` when it is not on the list. */
function known(list: { safeParse: (value: unknown) => { success: boolean } }, value: string | null): string | null {
	if (value === null || value === undefined) return null;
	return list.safeParse(value).success ? value : OTHER;
}

/** Seconds to the millisecond: D1's julianday arithmetic is no finer. */
const rounded = (seconds: number | null | undefined): number | null =>
	typeof seconds === "number" ? Math.round(seconds * 1000) / 1000 : null;
