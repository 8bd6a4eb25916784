import { createRoute, z } from "@hono/zod-openapi";
import { jsonResponse, routeModule } from "./openapi-app";

export const healthRoutes = routeModule();

/**
 * The release of the reference's 0.12 line whose public interface this gateway follows
 * (docs/api.md#route-table, `GET /`); clients compare it, not this repository's own version.
 */
export const SERVICE_VERSION = "0.12.27";

healthRoutes.openapi(
	createRoute({
		method: "get",
		path: "/health",
		responses: {
			200: jsonResponse(
				z.object({
					status: z.literal("ok"),
					service: z.literal("gateway"),
					version: z
						.string()
						.openapi({ description: "The release of the 0.12 line whose interface the gateway follows", example: "0.12.27" }),
				}),
				"Gateway is up",
			),
		},
	}),
	(c) => c.json({ status: "ok" as const, service: "gateway" as const, version: SERVICE_VERSION }, 200),
);
