import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { type FleetMetrics, HostReport } from "../bot-channel/fleet";
import { credentialHost, requireSameHost } from "../bot-channel/host-credentials";
import { type Env, intVar } from "../env";
import { ApiError } from "../errors";
import { secretsEqual } from "../gateway/api-keys";
import { JOIN_LEAD_MS, LATE_LIMIT_MS } from "../meetings/auto-join-rule";
import { fleetBody } from "./bot-fleet";

/**
 * Host reports in, fleet metrics out (docs/bot-fleet.md#autoscaling-and-deployment). Reports
 * feed dashboards and the autoscaler only; nothing's correctness depends on one arriving.
 */
export const fleetMetricsRoutes = new Hono<AppEnv>();

/** A host that has not reported for this long is left out of the metrics (hosts report every few seconds). */
export const HOST_REPORT_FRESH_MS = 60_000;
/** Reports older than this are deleted: a host that stopped reporting is gone from the fleet. */
const HOST_REPORT_KEEP_MS = 24 * 3_600_000;

/** Statuses in which a meeting holds a bot (or a host is about to start one). */
const WITH_BOT = ["joining", "awaiting_admission", "needs_help", "active", "stopping"] as const;

/** 503 naming the setting when it is unset, 401 unless the Bearer matches it (in equal time). */
async function requireBearer(header: string | undefined, secret: string | undefined, setting: string) {
	if (!secret) throw new ApiError(503, `${setting} is not configured`);
	const presented = header?.match(/^Bearer\s+(.+)$/i)?.[1] ?? "";
	if (!(await secretsEqual(presented, secret))) throw new ApiError(401, `Invalid or missing ${setting}`);
}

/** A host reports as itself only (its credential names it), so no host can overwrite another's report. */
fleetMetricsRoutes.post("/internal/bot-hosts/reports", async (c) => {
	const hostId = await credentialHost(c.env, c.req.header("authorization"));
	const report = await fleetBody(c, HostReport);
	requireSameHost(hostId, report.host_id);
	const now = Date.now();
	await c.env.DB.batch([
		c.env.DB.prepare(
			"INSERT INTO bot_hosts (host_id, report, reported_at) VALUES (?, ?, ?) ON CONFLICT (host_id) DO UPDATE SET report = excluded.report, reported_at = excluded.reported_at",
		).bind(report.host_id, JSON.stringify(report), new Date(now).toISOString()),
		c.env.DB.prepare("DELETE FROM bot_hosts WHERE reported_at < ?").bind(new Date(now - HOST_REPORT_KEEP_MS).toISOString()),
	]);
	return c.body(null, 204);
});

fleetMetricsRoutes.get("/internal/fleet/metrics", async (c) => {
	await requireBearer(c.req.header("authorization"), c.env.FLEET_METRICS_TOKEN, "FLEET_METRICS_TOKEN");
	return c.json(await fleetMetrics(c.env, Date.now()));
});

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

export async function fleetMetrics(env: Env, now: number): Promise<FleetMetrics> {
	const dueWindowS = Math.max(1, intVar(env.FLEET_DUE_WINDOW_S, 600));
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
		// Read through the schema: a report stored before it lost `meeting_ids` shows none.
		hosts: ((hosts?.results ?? []) as { report: string; reported_at: string }[]).flatMap((row) => {
			const report = HostReport.safeParse(JSON.parse(row.report));
			return report.success ? [{ ...report.data, reported_at: row.reported_at }] : [];
		}),
	};
}
