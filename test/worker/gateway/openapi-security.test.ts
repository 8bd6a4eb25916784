import { describe, expect, it } from "vitest";
import { call, json } from "../support";

/** /openapi.json says which credential each operation takes, so a renderer (/docs) sends the key only where asked. */

type Operation = { security?: Record<string, string[]>[] };
interface Doc {
	paths: Record<string, Record<string, Operation>>;
	components: { securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }> };
}

/** A key route takes the key in either header: the two entries are alternatives. */
const KEY = [{ ApiKeyAuth: [] }, { BearerAuth: [] }];

describe("/openapi.json security", () => {
	it("declares the key (as X-API-Key or Bearer) and admin header schemes, and the operator's metrics token as a Bearer", async () => {
		const doc = await json<Doc>(await call("GET", "/openapi.json"));
		expect(doc.components.securitySchemes).toEqual({
			ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-Key" },
			BearerAuth: { type: "http", scheme: "bearer", description: "The same API key as `Authorization: Bearer <key>`" },
			AdminApiKeyAuth: { type: "apiKey", in: "header", name: "X-Admin-API-Key" },
			FleetMetricsAuth: { type: "http", scheme: "bearer", description: "FLEET_METRICS_TOKEN (docs/bot-fleet.md#join-health)" },
		});
	});

	it.each([
		["get", "/auth/me", KEY],
		["post", "/auth/keys", KEY],
		["delete", "/auth/keys/{key_id}", KEY],
		["get", "/transcripts/{platform}/{native_meeting_id}", KEY],
		["post", "/admin/users/{user_id}/tokens", [{ AdminApiKeyAuth: [] }]],
		["get", "/health", []],
		["get", "/public/transcripts/{share_file}", []],
		["get", "/internal/fleet/join-health", [{ FleetMetricsAuth: [] }]],
		["get", "/metrics", [{ FleetMetricsAuth: [] }]],
	])("gives %s %s the security %j", async (method, path, security) => {
		const doc = await json<Doc>(await call("GET", "/openapi.json"));
		expect(doc.paths[path]?.[method]?.security).toEqual(security);
	});

	it("declares security on every operation", async () => {
		const doc = await json<Doc>(await call("GET", "/openapi.json"));
		const undeclared = Object.entries(doc.paths).flatMap(([path, ops]) =>
			Object.entries(ops)
				.filter(([, op]) => op && typeof op === "object" && "responses" in op && !Array.isArray(op.security))
				.map(([method]) => `${method} ${path}`),
		);
		expect(undeclared).toEqual([]);
	});
});
