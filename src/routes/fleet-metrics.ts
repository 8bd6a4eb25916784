import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { HostReport } from "../bot-channel/fleet";
import { fleetMetrics, storeHostReport } from "../bot-channel/fleet-store";
import { credentialHost, requireSameHost } from "../bot-channel/host-credentials";
import { ApiError } from "../errors";
import { secretsEqual } from "../gateway/api-keys";
import { fleetBody } from "./bot-fleet";

/**
 * Host reports in, fleet metrics out (docs/bot-fleet.md#autoscaling-and-deployment). Reports
 * feed dashboards and the autoscaler only; nothing's correctness depends on one arriving.
 */
export const fleetMetricsRoutes = new Hono<AppEnv>();

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
	await storeHostReport(c.env, report, Date.now());
	return c.body(null, 204);
});

fleetMetricsRoutes.get("/internal/fleet/metrics", async (c) => {
	await requireBearer(c.req.header("authorization"), c.env.FLEET_METRICS_TOKEN, "FLEET_METRICS_TOKEN");
	return c.json(await fleetMetrics(c.env, Date.now()));
});
