import { createRoute, z } from "@hono/zod-openapi";
import { SERVICE_VERSION } from "../version";
import { jsonResponse, routeModule } from "./openapi-app";

export const healthRoutes = routeModule();

healthRoutes.openapi(
	createRoute({
		method: "get",
		path: "/health",
		responses: {
			200: jsonResponse(
				z.object({
					status: z.literal("ok"),
					service: z.literal("gateway"),
					version: z.string().openapi({
						description: "This service's version (src/version.ts), a release of the 0.12 line whose interface it follows",
						example: SERVICE_VERSION,
					}),
				}),
				"Gateway is up",
			),
		},
	}),
	(c) => c.json({ status: "ok" as const, service: "gateway" as const, version: SERVICE_VERSION }, 200),
);
