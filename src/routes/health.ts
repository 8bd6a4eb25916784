import { createRoute, z } from "@hono/zod-openapi";
import { jsonResponse, routeModule } from "./openapi-app";

export const healthRoutes = routeModule();

healthRoutes.openapi(
	createRoute({
		method: "get",
		path: "/health",
		responses: { 200: jsonResponse(z.object({ status: z.literal("ok"), service: z.literal("gateway") }), "Gateway is up") },
	}),
	(c) => c.json({ status: "ok" as const, service: "gateway" as const }, 200),
);
