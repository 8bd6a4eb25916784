import { createRoute, z } from "@hono/zod-openapi";
import { requireFleetMetricsToken } from "../gateway/operator-token";
import { JOIN_HEALTH_WINDOWS, joinHealth } from "../meetings/join-health";
import { EXPOSITION_CONTENT_TYPE, joinHealthExposition } from "../meetings/join-health-exposition";
import { ApiErrorBody, jsonResponse, routeModule } from "./openapi-app";

/**
 * Join health for the operator (docs/bot-fleet.md#join-health): per platform, over the last hour
 * and day, join success rate, time to admission and failures by reason, cause and step, as
 * Prometheus text (`GET /metrics`) and as JSON for the dashboard's Join health page. Both take
 * FLEET_METRICS_TOKEN as a Bearer, never a user's key.
 */
export const joinHealthRoutes = routeModule();

const reason = z.string().nullable().openapi({ description: "`completion_reason`, `other` for a value outside the list; null: none" });
const cause = z.string().nullable().openapi({ description: "`data.failure_cause`, `other` for a value outside the list; null: none" });

const PlatformJoinHealth = z
	.object({
		platform: z.string(),
		attempts: z
			.number()
			.int()
			.openapi({ description: "`joined + failed`: joins a bot made on the platform that reached an outcome in the window" }),
		joined: z.number().int().openapi({ description: "Attempts admitted to the meeting" }),
		failed: z.number().int().openapi({ description: "Attempts that failed before admission" }),
		success_rate: z.number().nullable().openapi({ description: "`joined / attempts`, 0 to 1; null without attempts" }),
		admission_seconds: z
			.object({
				measured: z.number().int().openapi({ description: "Admitted joins whose time to admission is known" }),
				p50: z.number().nullable(),
				p95: z.number().nullable(),
			})
			.openapi({ description: "From the bot's first `joining` to `active`, nearest-rank quantiles; null when none was measured" }),
		failures: z
			.array(
				z.object({
					reason,
					cause,
					step: z
						.string()
						.nullable()
						.openapi({ description: "`data.join_step`: where the join stopped; `other` outside the list; null: not reported" }),
					count: z.number().int(),
				}),
			)
			.openapi({ description: "The failed attempts by reason, cause and step, most first" }),
		fleet_failures: z
			.array(z.object({ reason, cause, count: z.number().int() }))
			.openapi({ description: "Not attempts: joins the fleet ended (no host, host lost or shut down, no bot ever began), most first" }),
		ended_before_admission: z
			.array(z.object({ reason, count: z.number().int() }))
			.openapi({ description: "Not attempts: meetings that ended before admission without failing (stopped by their user), most first" }),
	})
	.openapi("PlatformJoinHealth");

export const JoinHealth = z
	.object({
		generated_at: z.string(),
		windows: z.array(
			z.object({
				window: z.enum(JOIN_HEALTH_WINDOWS.map((w) => w.window) as ["1h", "24h"]),
				since: z.string().openapi({ description: "The window's start: it runs to `generated_at`" }),
				platforms: z
					.array(PlatformJoinHealth)
					.openapi({ description: "`google_meet`, `zoom` and `teams` always (zero figures without attempts), then any other seen" }),
			}),
		),
	})
	.openapi("JoinHealth");

const operator = {
	security: [{ FleetMetricsAuth: [] }],
	responses: {
		401: jsonResponse(ApiErrorBody, "`Invalid or missing FLEET_METRICS_TOKEN`"),
		503: jsonResponse(ApiErrorBody, "`FLEET_METRICS_TOKEN is not configured`"),
	},
};

joinHealthRoutes.openapi(
	createRoute({
		method: "get",
		path: "/internal/fleet/join-health",
		description: "Join health per platform over the last hour and day (docs/bot-fleet.md#join-health)",
		security: operator.security,
		responses: { 200: jsonResponse(JoinHealth, "The figures, computed now"), ...operator.responses },
	}),
	async (c) => {
		await requireFleetMetricsToken(c.env, c.req.header("authorization"));
		return c.json(await joinHealth(c.env, Date.now()), 200);
	},
);

joinHealthRoutes.openapi(
	createRoute({
		method: "get",
		path: "/metrics",
		description: "Join health in the Prometheus text exposition format 0.0.4 (docs/bot-fleet.md#join-health)",
		security: operator.security,
		responses: {
			200: { description: "`meetbot_join_*` gauges, labelled by platform and window", content: { "text/plain": { schema: z.string() } } },
			...operator.responses,
		},
	}),
	async (c) => {
		await requireFleetMetricsToken(c.env, c.req.header("authorization"));
		return c.text(joinHealthExposition(await joinHealth(c.env, Date.now())), 200, { "content-type": EXPOSITION_CONTENT_TYPE });
	},
);
