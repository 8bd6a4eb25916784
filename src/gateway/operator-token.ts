import type { Env } from "../env";
import { ApiError } from "../errors";
import { secretsEqual } from "./api-keys";

/**
 * The operator's routes (fleet metrics, join health: docs/bot-fleet.md#autoscaling-and-deployment)
 * take FLEET_METRICS_TOKEN as a Bearer: 503 naming the setting when it is unset, 401 unless the
 * Bearer matches it (compared in equal time). No user key opens them.
 */
export async function requireFleetMetricsToken(env: Env, authorization: string | undefined): Promise<void> {
	const secret = env.FLEET_METRICS_TOKEN;
	if (!secret) throw new ApiError(503, "FLEET_METRICS_TOKEN is not configured");
	const presented = authorization?.match(/^Bearer\s+(.+)$/i)?.[1] ?? "";
	if (!(await secretsEqual(presented, secret))) throw new ApiError(401, "Invalid or missing FLEET_METRICS_TOKEN");
}
