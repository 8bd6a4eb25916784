import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { HostReport } from "../bot-channel/fleet";
import { fleetMetrics, storeHostReport } from "../bot-channel/fleet-store";
import { credentialHost, requireSameHost } from "../bot-channel/host-credentials";
import { requireFleetMetricsToken } from "../gateway/operator-token";
import { fleetBody } from "./bot-fleet";

/**
 * Host reports in, fleet metrics out (docs/bot-fleet.md#autoscaling-and-deployment). Reports
 * feed dashboards and the autoscaler only; nothing's correctness depends on one arriving.
 */
export const fleetMetricsRoutes = new Hono<AppEnv>();

/** A host reports as itself only (its credential names it), so no host can overwrite another's report. */
fleetMetricsRoutes.post("/internal/bot-hosts/reports", async (c) => {
	const hostId = await credentialHost(c.env, c.req.header("authorization"));
	const report = await fleetBody(c, HostReport);
	requireSameHost(hostId, report.host_id);
	await storeHostReport(c.env, report, Date.now());
	return c.body(null, 204);
});

fleetMetricsRoutes.get("/internal/fleet/metrics", async (c) => {
	await requireFleetMetricsToken(c.env, c.req.header("authorization"));
	return c.json(await fleetMetrics(c.env, Date.now()));
});
