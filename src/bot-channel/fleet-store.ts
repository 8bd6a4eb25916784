import type { Env } from "../env";
import { JOIN_LEAD_MS, LATE_LIMIT_MS } from "../meetings/auto-join-rule";
import { setting } from "../settings/deployment-defaults";
import { type FleetMetrics, HostReport } from "./fleet";

/**
 * Raw SQL store (batches: the metrics are four counts read in one D1 batch, over a table drizzle does not mirror).
 * Host reports and the fleet metrics read from them (docs/bot-fleet.md#autoscaling-and-deployment).
 */

/** A host that has not reported for this long is left out of the metrics (hosts report every few seconds). */
export const HOST_REPORT_FRESH_MS = 60_000;
/** Reports older than this are deleted: a host that stopped reporting is gone from the fleet. */
const HOST_REPORT_KEEP_MS = 24 * 3_600_000;

/** Statuses in which a meeting holds a bot (or a host is about to start one). */
const WITH_BOT = ["joining", "awaiting_admission", "needs_help", "active", "stopping"] as const;

/**
 * Keeps the host's latest report, and drops reports of hosts long gone, in one batch. The
 * report's `free` is what the host may claim until its next one (host-slots.ts).
 */
export async function storeHostReport(env: Env, report: HostReport, now: number): Promise<void> {
	await env.DB.batch([
		env.DB.prepare(
			"INSERT INTO bot_hosts (host_id, report, reported_at) VALUES (?, ?, ?) ON CONFLICT (host_id) DO UPDATE SET report = excluded.report, reported_at = excluded.reported_at, claims_since_report = 0",
		).bind(report.host_id, JSON.stringify(report), new Date(now).toISOString()),
		env.DB.prepare("DELETE FROM bot_hosts WHERE reported_at < ?").bind(new Date(now - HOST_REPORT_KEEP_MS).toISOString()),
	]);
}

/** Forgets a host's last report (its credential was revoked), so it leaves the metrics at once. */
export async function forgetHostReport(env: Env, hostId: string): Promise<void> {
	await env.DB.prepare("DELETE FROM bot_hosts WHERE host_id = ?").bind(hostId).run();
}

export const fleetQueries = {
	live: `SELECT count(*) AS n FROM meetings WHERE status IN (${WITH_BOT.map(() => "?").join(", ")})`,
	unclaimed: "SELECT count(*) AS n FROM meetings WHERE status = 'requested'",
	/**
	 * A plan's auto-join fires JOIN_LEAD_MS before its start (durable-objects/meeting-room/auto-join.ts) and at
	 * once when that is past, until the plan goes stale LATE_LIMIT_MS after its start; this is
	 * mayAutoJoin in SQL (the calendar sweep's clause).
	 */
	dueSoon: `SELECT count(*) AS n FROM meetings
		WHERE status = 'scheduled' AND scheduled_at >= ? AND scheduled_at <= ?
			AND auto_join = 1 AND platform != 'unknown' AND native_meeting_id IS NOT NULL`,
	hosts: "SELECT report, reported_at FROM bot_hosts WHERE reported_at >= ? ORDER BY reported_at DESC LIMIT 1000",
};

/** Each report as the schema reads it (a report stored before it lost `meeting_ids` shows none); unreadable ones are left out. */
function parsedReports(rows: { report: string; reported_at: string }[]): (HostReport & { reported_at: string })[] {
	return rows.flatMap((row) => {
		const report = HostReport.safeParse(JSON.parse(row.report));
		return report.success ? [{ ...report.data, reported_at: row.reported_at }] : [];
	});
}

/**
 * The latest report of every host that reported within HOST_REPORT_FRESH_MS: what a waiting
 * meeting says it waits on (durable-objects/meeting-room/placement/watch.ts). Text to show,
 * never a decision: a host takes work by pulling tickets, whatever it last reported.
 */
export async function freshHostReports(env: Env, now: number): Promise<HostReport[]> {
	const rows = await env.DB.prepare(fleetQueries.hosts)
		.bind(new Date(now - HOST_REPORT_FRESH_MS).toISOString())
		.all<{ report: string; reported_at: string }>();
	return parsedReports(rows.results).map(({ reported_at: _, ...report }) => report);
}

export async function fleetMetrics(env: Env, now: number): Promise<FleetMetrics> {
	const dueWindowS = Math.max(1, setting(env, "FLEET_DUE_WINDOW_S"));
	const [live, unclaimed, dueSoon, hosts] = await env.DB.batch<{ n: number } | { report: string; reported_at: string }>([
		env.DB.prepare(fleetQueries.live).bind(...WITH_BOT),
		env.DB.prepare(fleetQueries.unclaimed),
		env.DB.prepare(fleetQueries.dueSoon).bind(
			new Date(now - LATE_LIMIT_MS).toISOString(),
			new Date(now + dueWindowS * 1000 + JOIN_LEAD_MS).toISOString(),
		),
		env.DB.prepare(fleetQueries.hosts).bind(new Date(now - HOST_REPORT_FRESH_MS).toISOString()),
	]);
	const count = (result: D1Result<unknown> | undefined) => (result?.results[0] as { n: number } | undefined)?.n ?? 0;
	const counts = { live: count(live), unclaimed: count(unclaimed), due_soon: count(dueSoon) };
	return {
		bots_needed: counts.live + counts.unclaimed + counts.due_soon,
		...counts,
		due_window_s: dueWindowS,
		hosts: parsedReports((hosts?.results ?? []) as { report: string; reported_at: string }[]),
	};
}
