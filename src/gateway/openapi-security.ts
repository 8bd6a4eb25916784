import { lookupAccess } from "./route-scopes";

/**
 * The document's security schemes: the user's key (as `X-API-Key` or as a Bearer token, either
 * one), the operator's admin token, and the operator's metrics token.
 */
export const SECURITY_SCHEMES = {
	ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-Key" },
	BearerAuth: { type: "http", scheme: "bearer", description: "The same API key as `Authorization: Bearer <key>`" },
	AdminApiKeyAuth: { type: "apiKey", in: "header", name: "X-Admin-API-Key" },
	FleetMetricsAuth: { type: "http", scheme: "bearer", description: "FLEET_METRICS_TOKEN (docs/bot-fleet.md#join-health)" },
} as const;

type Operation = { security?: Record<string, string[]>[] };
type Document = { paths?: Record<string, object> };

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head"]);

/**
 * Says on each operation of the OpenAPI document which credential it takes, read from the one
 * route table (route-scopes.ts), so a renderer (`/docs`) sends the visitor's key exactly where
 * the gateway asks for it: `X-API-Key` or a Bearer token on key routes, the admin header on admin routes, nothing
 * on public ones. A route that authenticates itself keeps the scheme it declares (the metrics
 * token's routes), else it has none.
 */
export function declareSecurity<D extends Document>(document: D): D {
	for (const [path, operations] of Object.entries(document.paths ?? {})) {
		for (const [method, operation] of Object.entries(operations as Record<string, unknown>)) {
			if (!METHODS.has(method) || !operation || typeof operation !== "object") continue;
			// Any segment matches a route parameter in the table, so a placeholder stands for each.
			const access = lookupAccess(method.toUpperCase(), path.replace(/\{[^}/]+\}/g, "_"));
			const op = operation as Operation;
			// Two entries are alternatives: either header carries the key.
			if (access?.kind === "key") op.security = [{ ApiKeyAuth: [] }, { BearerAuth: [] }];
			else if (access?.kind === "admin") op.security = [{ AdminApiKeyAuth: [] }];
			else op.security ??= [];
		}
	}
	return document;
}
