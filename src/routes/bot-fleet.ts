import { Hono } from "hono";
import type { AppEnv } from "../app-env";

/**
 * The bot fleet's internal routes (docs/bot-fleet.md): hosts claim spawn tickets and report what
 * they run (Bearer BOT_HOST_SECRET); an autoscaler reads the fleet's metrics (Bearer
 * FLEET_METRICS_TOKEN). Each route checks its own credential.
 */
export const botFleetRoutes = new Hono<AppEnv>();
